import { installNodeRuntime } from '../runtime/node-runtime';
import { createNodeRuntime } from './create-node-runtime';

// Vitest setup file: every test file starts with a fresh node runtime, as a fresh process would.
installNodeRuntime(createNodeRuntime());
