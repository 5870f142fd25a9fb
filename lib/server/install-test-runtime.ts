import { installNodeRuntime } from '../runtime/node-runtime';
import { createNodeRuntime } from './create-node-runtime';

// Vitest setup file, run before every test file. Test files share a worker process (isolate:
// false, which saves re-importing lib for each of them), so each one starts from the environment
// the worker began with (tests set DATA_DIR, DATABASE_URL, S3_* …) and with a fresh node runtime,
// as a fresh process would.
const ENV_AT_START = Symbol.for('keyframe.test.envAtStart');
const holder = globalThis as { [ENV_AT_START]?: Record<string, string | undefined> };
holder[ENV_AT_START] ??= { ...process.env };
const envAtStart = holder[ENV_AT_START];
for (const name of Object.keys(process.env)) if (!(name in envAtStart)) delete process.env[name];
Object.assign(process.env, envAtStart);

installNodeRuntime(createNodeRuntime());
