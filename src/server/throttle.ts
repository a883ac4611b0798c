// How many calls that return an app's data may run at once. Such a result is as large as the app makes it (up to the
// node's 16 MiB answer cap, 32 of them in a call_many), and each one in flight is held several times over while it is
// converted, serialized and written. So at most MAX_RUNNING run at once, the rest wait in order (up to MAX_WAITING,
// beyond which a call is refused at once), and none starts while more than HIGH_WATER_BYTES of answers are still on
// their way out to a client that reads slowly. Light requests (ping, lists, waits) never wait here.

/** The most app calls running at once. */
export const MAX_RUNNING = 4;
/** The most app calls waiting for a turn; one more is refused at once. */
export const MAX_WAITING = 256;
/**
 * The most scripts (run_script) running at once, process-wide, each in a runner of at most 256 MiB: 512 MiB for all
 * of them. A script does not hold an app call's turn; each call it makes takes one like any other.
 */
export const MAX_SCRIPTS = 2;
/** The most scripts waiting for a turn; one more is refused at once. */
export const MAX_SCRIPTS_WAITING = 16;
/** Answers not yet written out above which no further app call starts. */
export const HIGH_WATER_BYTES = 8 * 1024 * 1024;

/** The limits of a {@link Throttle}. */
export interface ThrottleOptions {
  maxRunning?: number;
  maxWaiting?: number;
  highWaterBytes?: number;
  /** Bytes of answers sent but not yet written out (0 where the transport writes directly). */
  pendingOutput?(): number;
  /** What it paces, as its refusal names it (default: app calls, with call_many as the way out). */
  what?: { noun: string; retry: string };
}

/** Runs app calls within the limits. */
export interface Throttle {
  /**
   * Runs `call` when a turn comes; resolves to `refused` (with the sentence to show) when too many wait, or when
   * `signal` aborts while it waits.
   */
  run<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T | { refused: string }>;
  /** Some answers were written out: a waiting call may start. */
  drained(): void;
  /** What runs and waits now. */
  status(): { running: number; waiting: number };
}

/** Creates a throttle. */
export function createThrottle(options: ThrottleOptions = {}): Throttle {
  const maxRunning = options.maxRunning ?? MAX_RUNNING;
  const maxWaiting = options.maxWaiting ?? MAX_WAITING;
  const highWater = options.highWaterBytes ?? HIGH_WATER_BYTES;
  const pending = options.pendingOutput ?? (() => 0);
  const what = options.what ??
    { noun: "app calls", retry: "Retry when some have answered, or batch them with call_many." };
  const waiting: (() => void)[] = [];
  let running = 0;

  const next = () => {
    while (waiting.length > 0 && running < maxRunning && pending() <= highWater) {
      running++;
      waiting.shift()!();
    }
  };

  return {
    async run(call, signal) {
      if (running >= maxRunning || pending() > highWater || waiting.length > 0) {
        if (waiting.length >= maxWaiting) {
          return {
            refused:
              `Too many ${what.noun} at once: ${running} are running and ${waiting.length} are waiting. ${what.retry}`,
          };
        }
        const turn = Promise.withResolvers<boolean>();
        const take = () => turn.resolve(true);
        const leave = () => {
          const index = waiting.indexOf(take);
          if (index >= 0) waiting.splice(index, 1);
          turn.resolve(false);
        };
        waiting.push(take);
        signal.addEventListener("abort", leave, { once: true });
        const taken = await turn.promise;
        signal.removeEventListener("abort", leave);
        if (!taken) return { refused: "The call was cancelled while it waited for its turn." };
      } else running++;
      try {
        return await call();
      } finally {
        running--;
        next();
      }
    },
    drained: next,
    status: () => ({ running, waiting: waiting.length }),
  };
}
