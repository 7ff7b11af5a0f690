// One long-lived Rust oracle (`toolsurface validate --jsonl`) for a whole test run: one JSON
// line in, one verdict line out, in order. TOOLSURFACE_BIN names the binary (scripts/test sets
// it); without it the workspace's debug build is used, and a missing binary fails the run.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const BIN = process.env["TOOLSURFACE_BIN"] ?? `${ROOT}target/debug/toolsurface`;

export interface OracleRequest {
  role: string;
  family: string;
  skills: readonly string[];
  name: string;
  arguments: string | unknown;
}

export class Oracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((line: string) => void)[] = [];

  constructor(args: readonly string[] = []) {
    if (!existsSync(BIN)) {
      throw new Error(`the oracle binary ${BIN} is missing: build it (cargo build --bin toolsurface) or set TOOLSURFACE_BIN`);
    }
    this.child = spawn(BIN, ["validate", "--jsonl", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const next = this.waiting.shift();
      if (next === undefined) throw new Error(`the oracle said more than asked: ${line}`);
      next(line);
    });
    this.child.stderr.on("data", (d: Buffer) => process.stderr.write(d));
  }

  /** The oracle's answer line, verbatim. */
  ask(req: OracleRequest): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(`${JSON.stringify(req)}\n`);
    });
  }

  /** Many requests pipelined; answers in order. */
  askAll(reqs: readonly OracleRequest[]): Promise<string[]> {
    return Promise.all(reqs.map((r) => this.ask(r)));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.on("close", () => resolve());
      this.child.stdin.end();
    });
  }
}
