// Bench-only worker module: the fetch timer first (imports evaluate in order), then the real server worker.

import "./fetch_timer.ts";
import "../../src/server/index.ts";
