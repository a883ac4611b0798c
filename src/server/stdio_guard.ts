// Imported first by the worker entry: points console.log/info/debug at stderr before any dependency
// loads, so nothing a library prints can corrupt the protocol on stdout.
// deno-lint-ignore-file no-console -- this module is the one place that rewires the console.

const toStderr = (...args: unknown[]): void => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
