// A scripted stand-in for `fetch`, for unit tests of code that talks to a node: it records every
// request (method, URL, headers, body text) and answers from a handler. Never used in production.

import assert from "assert";
import { createMeroClient, type MeroClient } from "../mero/mod.ts";

/** One request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  /** The body as text ("" when none). */
  body: string;
  /** The body as bytes (empty when none). */
  bytes: Uint8Array;
}

/** The handler answering each request; may throw to simulate a transport failure. */
export type FakeHandler = (
  request: RecordedRequest,
  signal: AbortSignal | undefined,
) => Response | Promise<Response>;

/** A fake fetch plus the log of what it received. */
export interface FakeFetch {
  fetch: typeof fetch;
  requests: RecordedRequest[];
}

/** Builds a fake fetch that records requests and answers them with `handler`. */
export function fakeFetch(handler: FakeHandler): FakeFetch {
  const requests: RecordedRequest[] = [];
  const fake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const bytes = new Uint8Array(await request.arrayBuffer());
    const recorded: RecordedRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: new TextDecoder().decode(bytes),
      bytes,
    };
    requests.push(recorded);
    return await handler(recorded, init?.signal ?? undefined);
  };
  return { fetch: fake as typeof fetch, requests };
}

/** A JSON response with the given status (200 by default) and extra headers. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A promise that never settles unless the signal aborts, then rejects with its reason. */
export function hangUntilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** One admin method's expected wire behaviour, for the table tests of `admin.*`. */
export interface AdminCase {
  name: string;
  run: (client: MeroClient) => Promise<unknown>;
  method: string;
  path: string;
  /** Expected request body text; undefined means no body. */
  body?: string;
  /** Response body text. */
  answer: string;
  result: unknown;
}

/** A `{ data }` envelope as the node writes it. */
export const dataBody = (payload: unknown): string => JSON.stringify({ data: payload });

/** One test per case: the method, URL (under a path prefix) and body sent, and the typed result. */
export function testAdminCases(cases: AdminCase[]): void {
  for (const c of cases) {
    Deno.test(`admin.${c.name}: right method, path and body; typed result`, async () => {
      const fake = fakeFetch(() => new Response(c.answer, { status: 200 }));
      const client = createMeroClient({ baseUrl: "http://h:1/node1", fetch: fake.fetch });
      const result = await c.run(client);
      assert.deepEqual(result, c.result);
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0];
      assert.equal(request.method, c.method);
      assert.equal(request.url, `http://h:1/node1${c.path}`);
      if (c.body === undefined) {
        assert.equal(request.body, "");
      } else {
        assert.equal(request.body, c.body);
        assert.equal(request.headers.get("content-type"), "application/json");
      }
    });
  }
}
