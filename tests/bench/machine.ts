// The machine a benchmark ran on (cores, CPU model, RAM, OS, Deno), for RESULTS.md and the JSON output:
// absolute times mean little without it.

/** Where the numbers were measured. */
export interface Machine {
  cores: number;
  cpu: string;
  ramGiB: number | null;
  os: string;
  deno: string;
  v8: string;
  date: string;
}

function readOr(path: string, fallback = ""): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return fallback;
  }
}

/** Describes this machine (Linux details from /proc and /etc/os-release, else what Deno knows). */
export function describeMachine(): Machine {
  const cpuinfo = readOr("/proc/cpuinfo");
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1].trim() ?? Deno.build.arch;
  const memTotal = /^MemTotal:\s+(\d+)\s+kB/m.exec(readOr("/proc/meminfo"))?.[1];
  const osName = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readOr("/etc/os-release"))?.[1];
  return {
    cores: navigator.hardwareConcurrency,
    cpu,
    ramGiB: memTotal ? Math.round(Number(memTotal) / 1024 / 1024 * 10) / 10 : null,
    os: `${osName ?? Deno.build.os} (${Deno.build.target})`,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    date: new Date().toISOString().slice(0, 10),
  };
}

/** One line per fact, as Markdown list items. */
export function machineMarkdown(machine: Machine): string {
  return [
    `- cores (nproc): ${machine.cores}`,
    `- CPU: ${machine.cpu}`,
    `- RAM: ${machine.ramGiB === null ? "unknown" : `${machine.ramGiB} GiB`}`,
    `- OS: ${machine.os}`,
    `- Deno: ${machine.deno} (V8 ${machine.v8})`,
    `- date: ${machine.date}`,
  ].join("\n");
}
