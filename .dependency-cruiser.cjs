// The arrows of docs/architecture.md as rules, checked in CI by `npm run lint:arrows`. ESLint's
// no-restricted-imports (eslint.config.mjs) keeps each layer's imports in its lane; these rules see
// the whole graph: cycles, and the few arrows that must never point up.
// Product code is lib/, app/ and components/; tests, fixtures and generated Prisma code are not.

const PRODUCT = '^(lib|app|components)/';
const NOT_PRODUCT = ['\\.test\\.tsx?$', '\\.fixture\\.ts$', '/test-support/', '^lib/db/generated', '^lib/server/install-test-runtime\\.ts$'];
const product = (extra = {}) => ({ path: PRODUCT, pathNot: NOT_PRODUCT, ...extra });

module.exports = {
  forbidden: [
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'A module never reaches itself again through its imports (type-only imports included).',
      from: product(),
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'Folders stack in floors: no folder reaches itself again through another.',
      from: product(),
      to: { circular: true },
    },
    {
      name: 'services-below-roles',
      severity: 'error',
      comment: 'Services never import the worker role or the server entry: those sit above them and call down.',
      from: { path: '^lib/services/' },
      to: { path: '^lib/(worker|server|cli)/' },
    },
    {
      name: 'queue-below-services',
      severity: 'error',
      comment: 'lib/jobs is the queue (enqueue, signals): services import it, so it imports no service and no role.',
      from: { path: '^lib/jobs/' },
      to: { path: '^lib/(services|worker|server|http)/' },
    },
    {
      name: 'event-handlers-are-registered-at-the-top',
      severity: 'error',
      comment: 'A domain applies other nodes\' events in its own on-node-event.ts; only the server entry imports those.',
      from: { path: '^lib/(?!server/)' },
      to: { path: '/on-node-event\\.ts$' },
    },
    {
      name: 'libraries-hold-no-runtime-state',
      severity: 'error',
      comment: 'The libraries (media, ingest, analytics, schemas, utils) receive what they need as arguments: no runtime, no env, no database.',
      from: { path: '^lib/(media|ingest|analytics|schemas|utils)/' },
      to: { path: ['^lib/runtime/', '^lib/env\\.ts$', '^lib/db/', '^lib/log\\.ts$', '^lib/(services|http|jobs|worker|server|coordination)/'] },
    },
    {
      name: 'runtime-slot-imports-nothing',
      severity: 'error',
      comment: 'Every layer may reach the runtime accessor, so it points at nobody (owners declare their parts).',
      from: { path: '^lib/runtime/' },
      to: { path: '^(lib|app|components)/', pathNot: '^lib/runtime/' },
    },
    {
      name: 'entries-build-the-runtime',
      severity: 'error',
      comment: 'Only entry points (server, CLI) build and install the runtime; everything else reaches it through nodeRuntime().',
      from: product({ pathNot: [...NOT_PRODUCT, '^lib/(server|cli)/'] }),
      to: { path: '^lib/server/create-node-runtime\\.ts$' },
    },
    {
      name: 'product-never-imports-the-harness',
      severity: 'error',
      from: product(),
      to: { path: '^(harness|e2e)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests may reach across floors to set up what they check; the rules are about product code.
    exclude: { path: ['^lib/db/generated', '^node_modules', '^\\.next', '\\.(test|bench)\\.tsx?$', '\\.fixture\\.ts$', '/test-support/', '^lib/server/install-test-runtime\\.ts$'] },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs'] },
  },
};
