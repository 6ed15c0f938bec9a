import type { ApiApp } from '../../src/http/api/app.js';

/**
 * Starts an app on a free loopback port whose PUBLIC_URL (the issuer, fixed when the app is
 * built) must name that port: `build(publicUrl)` is asked for an app, which then listens on the
 * port the URL names. A port taken between choosing and listening is simply tried again.
 */
export async function listenOnLoopback(
  build: (publicUrl: string) => Promise<ApiApp>,
): Promise<{ app: ApiApp; publicUrl: string }> {
  const net = await import('node:net');
  for (let attempt = 0; ; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const publicUrl = `http://127.0.0.1:${port}`;
    const app = await build(publicUrl);
    try {
      await app.listen({ host: '127.0.0.1', port });
      return { app, publicUrl };
    } catch (err) {
      await app.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw err;
    }
  }
}
