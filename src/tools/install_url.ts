// What a node accepts as an install URL. Since 0.11.0-rc.10 core refuses any scheme but http(s), a URL over
// 2,048 characters, and hosts that are `localhost`, `*.localhost` or a literal loopback, private, link-local,
// CGNAT, broadcast or unspecified address (calimero-network/core crates/server/primitives/src/validation.rs,
// validate_url and url_host_is_blocked). Checked here first, so the agent hears why before a request is sent.

/** core's `MAX_URL_LENGTH`. */
export const MAX_INSTALL_URL_LENGTH = 2048;

/**
 * Why the node would refuse to download from `url`, or null when it would try. With `allowLocal` (for nodes
 * before 0.11.0-rc.10) only the host rule is lifted: a URL must still be http(s), with a host.
 */
export function installUrlProblem(url: string, allowLocal = false): string | null {
  if (url.length > MAX_INSTALL_URL_LENGTH) {
    return `the URL is ${url.length} characters; the node accepts at most ${MAX_INSTALL_URL_LENGTH}`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "it is not a URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `the node downloads only http:// and https:// URLs, not ${parsed.protocol}`;
  }
  if (parsed.hostname === "") return "the URL has no host";
  if (!allowLocal && isBlockedHost(parsed.hostname)) {
    return `${parsed.hostname} is a loopback, private, link-local or otherwise non-public address, ` +
      "which the node refuses to download from";
  }
  return null;
}

/** core's blocked hosts, on the host as the URL parser gives it (IPv6 in brackets, IPv4 normalised). */
function isBlockedHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host.startsWith("[")) return isBlockedIpv6(host.slice(1, -1));
  const v4 = ipv4(host);
  return v4 !== null && isBlockedIpv4(v4);
}

function ipv4(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

function isBlockedIpv4([a, b, c, d]: number[]): boolean {
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127) ||
    (a === 0 && b === 0 && c === 0 && d === 0) ||
    (a === 255 && b === 255 && c === 255 && d === 255);
}

function isBlockedIpv6(text: string): boolean {
  const groups = ipv6Groups(text);
  if (groups === null) return false;
  if (groups.every((g) => g === 0)) return true; // ::
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true; // ::1
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return isBlockedIpv4([groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff]);
  }
  return (groups[0] & 0xfe00) === 0xfc00 || (groups[0] & 0xffc0) === 0xfe80;
}

/** The eight 16-bit groups of an IPv6 address as the URL parser prints it (compressed, hex, no zone). */
function ipv6Groups(text: string): number[] | null {
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const parse = (part: string) => part === "" ? [] : part.split(":").map((g) => parseInt(g, 16));
  const front = parse(head);
  const back = tail === null ? [] : parse(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === null && missing !== 0)) return null;
  const groups = [...front, ...new Array(missing).fill(0), ...back];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}
