import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A provider on 127.0.0.1 that records every request and answers what the test says. */
export interface LocalProvider {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export type ProviderBehaviour = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
) => void;

export const answerJson =
  (data: Record<string, unknown>): ProviderBehaviour =>
  (request, response) => {
    const asked = new URL(request.url!, 'http://x');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        ...data,
        asked_url: asked.searchParams.get('url'),
        maxwidth: asked.searchParams.get('maxwidth'),
      }),
    );
  };

export async function startLocalProvider(behaviour: ProviderBehaviour): Promise<LocalProvider> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url!);
    behaviour(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
