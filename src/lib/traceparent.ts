// W3C Trace Context: the one header shape both ends use. The server takes a client's traceparent from a request's
// `_meta` only when it is well-formed, and the node client forwards only such a value to the node.

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** True when the value is a usable W3C traceparent (right shape, non-zero ids, version ≠ ff). */
export function isValidTraceparent(value: string): boolean {
  const match = TRACEPARENT.exec(value);
  if (!match || value.startsWith("ff")) return false;
  return !/^0+$/.test(match[1]) && !/^0+$/.test(match[2]);
}
