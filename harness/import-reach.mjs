// How many product files (lib/, app/, components/) a module pulls in, transitively: what loading
// it costs, and how far a change to it can reach. Usage:
//   node harness/import-reach.mjs 'app/video/v1/signing-keys/[keyId]/route.ts' [--runtime] [--list]
// --runtime leaves out type-only imports (erased by the compiler: nothing loaded at run time).
import madge from 'madge';

const args = process.argv.slice(2);
const entry = args.find((arg) => !arg.startsWith('--'));
if (!entry) {
  console.error('usage: node harness/import-reach.mjs <file> [--runtime] [--list]');
  process.exit(2);
}
const skipTypeImports = args.includes('--runtime');
const graph = (
  await madge(entry, {
    baseDir: '.',
    tsConfig: 'tsconfig.json',
    fileExtensions: ['ts', 'tsx'],
    excludeRegExp: [/lib\/db\/generated/],
    detectiveOptions: { ts: { skipTypeImports }, tsx: { skipTypeImports } },
  })
).obj();

const reached = new Set();
const pending = [entry];
while (pending.length > 0) {
  const file = pending.pop();
  if (reached.has(file)) continue;
  reached.add(file);
  pending.push(...(graph[file] ?? []));
}
const product = [...reached].filter((file) => /^(lib|app|components)\//.test(file)).sort();
console.log(product.length);
if (args.includes('--list')) console.log(product.join('\n'));
