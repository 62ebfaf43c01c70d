// The verifier's table-driven tests, in one process: each topic is a module of its own (check-app.ts,
// check-pipeline.ts, poll.ts, effects.ts, promotion-retry.ts, soak-check.ts, verify.ts), run here together so the
// folder pays the TypeScript loader's start-up once, not once per topic. Every rule is checked against the in-memory
// store, a scripted ClusterReader and recording queue and promoter (world.ts): no dynalite, no API server, no timers.
import './check-app.js';
import './check-pipeline.js';
import './poll.js';
import './effects.js';
import './promotion-retry.js';
import './soak-check.js';
import './verify.js';
