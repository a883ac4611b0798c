// Imported first by the worker entry: points console.log/info/debug at stderr before any dependency
// loads, so nothing a library prints can corrupt the protocol on stdout.

const toStderr = (...args: unknown[]): void => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
