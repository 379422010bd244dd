// Sends what a Node.js service sends through the real @sentry/node SDK to
// the DSN in SENTRY_DSN: an exception with a cause, a large event (the SDK
// gzips bodies over 32 KiB), a message with an attached stack, and logs;
// then flushes. The SDK comes from the npm cache that .ci/run fills
// (ERRATA_NPM_CACHE, default ~/.cache/errata-npm), never from the repository.
'use strict';

const os = require('node:os');
const path = require('node:path');

const cache = process.env.ERRATA_NPM_CACHE || path.join(os.homedir(), '.cache', 'errata-npm');
const Sentry = require(require.resolve('@sentry/node', { paths: [cache] }));

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: 'shop@2.0.1',
  environment: 'staging',
  serverName: 'web-2',
  attachStacktrace: true,
  enableLogs: true,
  tracesSampleRate: 0,
  sendClientReports: false,
});
Sentry.setTag('service', 'cart');
Sentry.setUser({ id: 'u-7' });

function parseCart(raw) {
  return raw.items.map((i) => i.sku);
}

function loadCart(raw) {
  try {
    return parseCart(raw);
  } catch (err) {
    throw new Error('cannot load cart 17', { cause: err });
  }
}

function handleRequest() {
  try {
    loadCart({});
  } catch (err) {
    Sentry.captureException(err);
  }
}

async function main() {
  handleRequest();
  await Sentry.flush(10000);

  // Larger than the SDK's 32 KiB gzip threshold. Its stack, as node
  // prints it, goes to stdout for the test to compare.
  const big = new RangeError('basket has 1200 items, more than 1000');
  Sentry.withScope((scope) => {
    scope.setExtra('payload', 'x'.repeat(40 * 1024));
    Sentry.captureException(big);
  });
  process.stdout.write(JSON.stringify({ stack: big.stack }) + '\n');
  await Sentry.flush(10000);

  Sentry.captureMessage('cache miss for user 7');
  await Sentry.flush(10000);

  Sentry.logger.info(Sentry.logger.fmt`user ${'u-7'} signed in`);
  Sentry.logger.warn('queue is backing up', { queue: 'emails', depth: 1200 });
  await Sentry.flush(10000);
  await Sentry.close(10000);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
