// Imported first by the worker entry: points every console method that writes to stdout at stderr before any
// dependency loads, so nothing a library prints can corrupt the protocol on stdout. Deno's dir, dirxml, table,
// count, timeLog and timeEnd print without going through console.log, so each is replaced here too.
// deno-lint-ignore-file no-console -- this module is the one place that rewires the console.

const toStderr = (...args: unknown[]): void => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
console.dir = (item?: unknown, options?: Deno.InspectOptions) =>
  console.error(Deno.inspect(item, options));
console.dirxml = toStderr;
console.table = (data?: unknown) => console.error(Deno.inspect(data));

const counts = new Map<string, number>();
console.count = (label = "default") => {
  const n = (counts.get(label) ?? 0) + 1;
  counts.set(label, n);
  console.error(`${label}: ${n}`);
};
console.countReset = (label = "default") => void counts.delete(label);

const timers = new Map<string, number>();
const elapsed = (label: string) =>
  `${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`;
console.time = (label = "default") => void timers.set(label, performance.now());
console.timeLog = (label = "default", ...data: unknown[]) => console.error(elapsed(label), ...data);
console.timeEnd = (label = "default") => {
  console.error(elapsed(label));
  timers.delete(label);
};
