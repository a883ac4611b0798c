import assert from "assert";
import { installUrlProblem } from "./install_url.ts";

const REFUSED = [
  "http://localhost:8080/app.mpk",
  "http://apps.localhost/app.mpk",
  "http://LOCALHOST./app.mpk",
  "http://127.0.0.1/app.mpk",
  "http://127.8.9.10/app.mpk",
  "http://10.1.2.3/app.mpk",
  "http://172.16.0.1/app.mpk",
  "http://172.31.255.255/app.mpk",
  "http://192.168.1.20/app.mpk",
  "http://169.254.169.254/latest/meta-data",
  "http://100.64.0.1/app.mpk",
  "http://100.127.255.255/app.mpk",
  "http://0.0.0.0/app.mpk",
  "http://255.255.255.255/app.mpk",
  "http://0x7f000001/app.mpk",
  "http://2130706433/app.mpk",
  "http://[::1]/app.mpk",
  "http://[::]/app.mpk",
  "http://[fc00::1]/app.mpk",
  "http://[fd12:3456::1]/app.mpk",
  "http://[fe80::1]/app.mpk",
  "http://[::ffff:127.0.0.1]/app.mpk",
  "http://[::ffff:10.0.0.1]/app.mpk",
];

const ACCEPTED = [
  "https://apps.example.com/kv-store-1.0.0.mpk",
  "http://8.8.8.8/app.wasm",
  "http://172.32.0.1/app.mpk",
  "http://100.128.0.1/app.mpk",
  "http://[2001:db8::1]/app.mpk",
  "http://[::ffff:8.8.8.8]/app.mpk",
  "https://user:pw@registry.example/artifacts/a.mpk?token=t",
];

Deno.test("install URLs the node refuses (core validate_url) are named before any request", () => {
  for (const url of REFUSED) {
    assert.match(installUrlProblem(url) ?? "", /non-public address/, url);
  }
  assert.match(installUrlProblem("ftp://apps.example.com/a.mpk")!, /only http:\/\/ and https:\/\//);
  assert.match(installUrlProblem("file:///tmp/a.mpk")!, /only http/);
  assert.match(installUrlProblem("not a url")!, /not a URL/);
  assert.match(installUrlProblem(`https://a.example/${"x".repeat(2048)}`)!, /at most 2048/);
});

Deno.test("public http(s) install URLs pass", () => {
  for (const url of ACCEPTED) assert.equal(installUrlProblem(url), null, url);
});

Deno.test("with local URLs allowed (older nodes) the scheme is still checked", () => {
  assert.equal(installUrlProblem("http://127.0.0.1:9/a.mpk", true), null);
  for (const url of ["file:///etc/shadow", "javascript:alert(1)", "/home/user/.ssh/id_rsa"]) {
    assert.notEqual(installUrlProblem(url, true), null, url);
  }
});
