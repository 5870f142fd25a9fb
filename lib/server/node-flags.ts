// Node flags the server runs with (`npm start` passes the same in package.json). A small young
// generation makes V8 free the short-lived buffers of streamed uploads and segments sooner: a 1 GiB
// upload peaks at ~220 MB resident instead of ~265 MB, and is no slower.
// Not --enable-source-maps: it keeps the parsed source map of every module loaded, Next.js's
// included, which measured 64 MB of the idle server's 318 MB resident. The bundle is not minified,
// so stack traces keep function names and module paths; NODE_OPTIONS=--enable-source-maps maps them
// back to the TypeScript lines when that is worth the memory.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'];

// Environment the server runs with (`npm start` sets the same). With io_uring, libuv completes a
// read of a page-cached file inside the submitting call, so every chunk of a hot segment was
// copied on the main thread, between requests (17 % of its CPU at ~3,000 segments/s); on the
// thread pool the copies run beside it, on the other cores.
export const SERVER_ENV = { UV_USE_IO_URING: '0' };
