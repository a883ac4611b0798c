// Guest failures of simulated app methods and their wire form: an app error travels as the Rust
// debug list of the UTF-8 bytes of its JSON, a panic as a plain "guest panicked" string.

import { stringifyExact } from "./json.ts";

/** The app returned `Err(value)`: `value` is what the app serialises (a string or an object). */
export class GuestError extends Error {
  constructor(readonly value: unknown) {
    super(`guest error: ${stringifyExact(value)}`);
    this.name = "GuestError";
  }
}

/** The app panicked; `location` imitates the `file:line:col` a Rust panic reports. */
export class GuestPanic extends Error {
  constructor(message: string, readonly location = "src/lib.rs:1:1") {
    super(message);
    this.name = "GuestPanic";
  }
}

/** Throws the app error `value` from a method implementation. */
export function fail(value: unknown): never {
  throw new GuestError(value);
}

/** Panics from a method implementation. */
export function panic(message: string, location?: string): never {
  throw new GuestPanic(message, location);
}

/** The `data` of a `FunctionCallError` for a guest failure, in the node's two shapes. */
export function functionCallErrorData(error: GuestError | GuestPanic): string {
  if (error instanceof GuestPanic) return `guest panicked: ${error.message} at ${error.location}`;
  const bytes = new TextEncoder().encode(stringifyExact(error.value));
  return `the method call returned an error: [${[...bytes].join(", ")}]`;
}
