// Reading a process's memory and CPU time from Linux /proc. Elsewhere every reader returns null and the
// benchmarks print that the figure was skipped.

/** Whether /proc readings are available here. */
export const HAS_PROC = Deno.build.os === "linux";

/** Resident set size in bytes (VmRSS of /proc/<pid>/status), or null. */
export function rssBytes(pid: number): number | null {
  if (!HAS_PROC) return null;
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every mainstream Linux). */
const USER_HZ = 100;

/** utime + stime of /proc/<pid>/stat in milliseconds (10 ms resolution), or null. */
export function cpuMsFromStat(pid: number): number | null {
  if (!HAS_PROC) return null;
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 1000 / USER_HZ;
  } catch {
    return null;
  }
}

/**
 * CPU time of every live thread of the process in milliseconds, from the nanosecond counters in
 * /proc/<pid>/task/<tid>/schedstat (threads that already exited are not counted), or null.
 */
export function cpuMsFromSchedstat(pid: number): number | null {
  if (!HAS_PROC) return null;
  try {
    let ns = 0;
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        const text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`);
        ns += Number(text.split(" ")[0]);
      } catch { /* the thread exited meanwhile */ }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

/** Bytes as mebibytes. */
export function mib(bytes: number): number {
  return bytes / (1024 * 1024);
}
