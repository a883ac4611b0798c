// mero-issue-tracker: an issue-board ABI and guide (fixtures/mero-issue-tracker.*), a raw wasm app, and a
// compact implementation of the rules the guide states (statuses, priorities, authorship, validation).

import { fail } from "../guest.ts";
import { sha256Hex } from "../ids.ts";
import type { CallEnv, MethodImpl } from "../types.ts";
import { DATA, dataText } from "./data.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

const STATUSES = ["Open", "In progress", "Blocked", "Done"];
const PRIORITIES = ["low", "medium", "high", "urgent"];
const SECTIONS = ["summary", "impact", "repro", "resolution_criteria"] as const;

interface Issue {
  id: string;
  title: string;
  summary: string;
  impact: string;
  repro: string;
  resolution_criteria: string;
  status: string;
  priority: string;
  assignee: string | null;
  labels: string[];
  created_by: string;
  created_at: number;
}

interface Comment {
  id: string;
  issue_id: string;
  author: string;
  body: string;
  created_at: number;
  edited_at: number | null;
}

interface Board {
  issues: Map<string, Issue>;
  comments: Map<string, Comment>;
  repoUrl: string;
  counter: number;
}

function board(env: CallEnv): Board {
  env.state.board ??= { issues: new Map(), comments: new Map(), repoUrl: "", counter: 0 };
  return env.state.board as Board;
}

function newId(kind: string, env: CallEnv): string {
  const b = board(env);
  b.counter++;
  return `${kind}-${env.now}-${sha256Hex(`${env.contextId}:${kind}:${b.counter}`).slice(0, 8)}`;
}

function issue(env: CallEnv, id: unknown): Issue {
  return board(env).issues.get(id as string) ?? fail(`Issue not found: ${id}`);
}

function comment(env: CallEnv, id: unknown): Comment {
  return board(env).comments.get(id as string) ?? fail(`Comment not found: ${id}`);
}

function oneOf(value: unknown, allowed: string[], what: string): string {
  if (!allowed.includes(value as string)) {
    fail(`Invalid ${what} "${value}": use one of ${allowed.join(", ")}`);
  }
  return value as string;
}

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== "string" || value.trim() === "") fail(`${what} must not be empty`);
  return value;
}

function label(value: unknown): string {
  const text = value as string;
  if (text.length < 1 || text.length > 64) fail("A label must be 1 to 64 characters");
  return text;
}

const sectionSetter = (field: typeof SECTIONS[number]): MethodImpl => (args, env) => {
  issue(env, args.issue_id)[field] = nonEmpty(args[field], field);
  return null;
};

const methods: Record<string, MethodImpl> = {
  init: () => null,
  create_issue: (args, env) => {
    const title = args.title as string;
    if (title.length < 1 || title.length > 64) fail("title must be 1 to 64 characters");
    for (const s of SECTIONS) nonEmpty(args[s], s);
    const created: Issue = {
      id: newId("issue", env),
      title,
      summary: args.summary as string,
      impact: args.impact as string,
      repro: args.repro as string,
      resolution_criteria: args.resolution_criteria as string,
      status: "Open",
      priority: oneOf(args.priority, PRIORITIES, "priority"),
      assignee: null,
      labels: [...new Set(((args.labels as unknown[] | null) ?? []).map(label))],
      created_by: env.executorAccount,
      created_at: env.now,
    };
    board(env).issues.set(created.id, created);
    return created.id;
  },
  get_issue: ({ issue_id }, env) => ({
    issue: { ...issue(env, issue_id) },
    comments: [...board(env).comments.values()].filter((c) => c.issue_id === issue_id),
  }),
  list_issues: ({ status, assignee, label }, env) =>
    [...board(env).issues.values()]
      .filter((i) => status == null || i.status === status)
      .filter((i) => assignee == null || i.assignee === assignee)
      .filter((i) => label == null || i.labels.includes(label as string))
      .sort((a, b) => a.created_at - b.created_at),
  get_status_counts: (_args, env) =>
    STATUSES.map((status) => ({
      status,
      count: [...board(env).issues.values()].filter((i) => i.status === status).length,
    })),
  get_repo_info: (_args, env) => ({ repo_url: board(env).repoUrl }),
  set_repo_url: ({ url }, env) => {
    if (!/^https?:\/\//.test(url as string)) fail("repo_url must start with http:// or https://");
    board(env).repoUrl = url as string;
    return null;
  },
  set_status: ({ issue_id, status }, env) => {
    issue(env, issue_id).status = oneOf(status, STATUSES, "status");
    return null;
  },
  set_priority: ({ issue_id, priority }, env) => {
    issue(env, issue_id).priority = oneOf(priority, PRIORITIES, "priority");
    return null;
  },
  set_assignee: ({ issue_id, assignee }, env) => {
    issue(env, issue_id).assignee = (assignee as string | null) ?? null;
    return null;
  },
  set_summary: sectionSetter("summary"),
  set_impact: sectionSetter("impact"),
  set_repro: sectionSetter("repro"),
  set_resolution_criteria: sectionSetter("resolution_criteria"),
  add_label: (args, env) => {
    const target = issue(env, args.issue_id);
    const name = label(args.label);
    if (!target.labels.includes(name)) target.labels.push(name);
    return null;
  },
  remove_label: (args, env) => {
    const target = issue(env, args.issue_id);
    target.labels = target.labels.filter((l) => l !== args.label);
    return null;
  },
  add_comment: ({ issue_id, body }, env) => {
    issue(env, issue_id);
    const id = newId("comment", env);
    board(env).comments.set(id, {
      id,
      issue_id: issue_id as string,
      author: env.executorAccount,
      body: nonEmpty(body, "body"),
      created_at: env.now,
      edited_at: null,
    });
    return id;
  },
  edit_comment: ({ comment_id, new_body }, env) => {
    const target = comment(env, comment_id);
    if (target.author !== env.executorAccount) fail("Only the comment's author may edit it");
    target.body = nonEmpty(new_body, "new_body");
    target.edited_at = env.now;
    return null;
  },
  delete_comment: ({ comment_id }, env) => {
    if (comment(env, comment_id).author !== env.executorAccount) {
      fail("Only the comment's author may delete it");
    }
    board(env).comments.delete(comment_id as string);
    return null;
  },
  delete_issue: ({ issue_id }, env) => {
    if (issue(env, issue_id).created_by !== env.executorAccount) {
      fail("Only the issue's creator may delete it");
    }
    const b = board(env);
    b.issues.delete(issue_id as string);
    for (const [id, c] of b.comments) if (c.issue_id === issue_id) b.comments.delete(id);
    return null;
  },
};

/** The mero-issue-tracker sample: an app with its guide in its metadata. */
export const issueTracker: SampleApp = {
  name: "mero-issue-tracker",
  versions: ["0.3.0"],
  build: ({ version }) => ({
    package: samplePackage("mero-issue-tracker"),
    version,
    name: "Mero Issue Tracker",
    description: "A private issue board for a small engineering team.",
    guide: dataText(DATA.issueTrackerGuide),
    // A raw wasm install whose installer passed metadata bytes with the guide: the one way a guide reaches a
    // current node (a bundle's stored metadata never has one: core crates/bundle/src/lib.rs, to_metadata_json).
    abi: dataText(DATA.issueTrackerAbi),
    methods,
  }),
};
