// Node flags the server runs with (`npm start` passes the same in package.json). A small young
// generation makes V8 free the short-lived buffers of streamed uploads and segments sooner: a 1 GiB
// upload peaks at ~220 MB resident instead of ~265 MB, and is no slower.
export const SERVER_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=2'];

// Environment the server runs with (`npm start` sets the same). With io_uring, libuv completes a
// read of a page-cached file inside the submitting call, so every chunk of a hot segment was
// copied on the main thread, between requests (17 % of its CPU at ~3,000 segments/s); on the
// thread pool the copies run beside it, on the other cores.
export const SERVER_ENV = { UV_USE_IO_URING: '0' };
