import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One resource of the test site. */
export interface Page {
  status?: number;
  type?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Answer after this long (a page past the crawl's timeout). */
  delayMs?: number;
  /** Send the body in this many bytes without a Content-Length (a page past the byte limit). */
  streamBytes?: number;
  /** Answer 304 when the request's If-None-Match equals the ETag. */
  etag?: string;
  lastModified?: string;
}

export interface Hit {
  path: string;
  at: number;
  userAgent: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
}

/** A real HTTP server for the crawler's tests: pages by path (with query), every request recorded. */
export class TestSite {
  readonly pages = new Map<string, Page>();
  readonly hits: Hit[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  origin = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.answer(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  set(path: string, page: Page | string): this {
    this.pages.set(path, typeof page === 'string' ? { body: page } : page);
    return this;
  }

  /** Requests to a path (with its query), in order. */
  hitsOf(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    this.hits.push({
      path,
      at: Date.now(),
      userAgent: req.headers['user-agent'],
      ifNoneMatch: req.headers['if-none-match'] as string | undefined,
      ifModifiedSince: req.headers['if-modified-since'] as string | undefined,
    });
    const page = this.pages.get(path);
    const send = () => {
      if (!page) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
        return;
      }
      const headers: Record<string, string> = { 'content-type': page.type ?? 'text/html; charset=utf-8', ...page.headers };
      if (page.etag) headers.etag = page.etag;
      if (page.lastModified) headers['last-modified'] = page.lastModified;
      if (page.etag && req.headers['if-none-match'] === page.etag) {
        res.writeHead(304, headers).end();
        return;
      }
      if (page.streamBytes !== undefined) {
        res.writeHead(page.status ?? 200, headers);
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const pump = () => {
          while (sent < page.streamBytes!) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
      res.writeHead(page.status ?? 200, headers).end(page.body ?? '');
    };
    if (page?.delayMs) {
      const timer = setTimeout(send, page.delayMs);
      res.on('close', () => clearTimeout(timer));
    } else send();
  }
}

/** A small HTML page linking to `links`. */
export function html(title: string, text: string, links: string[] = [], head = ''): string {
  const anchors = links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body><nav><a href="/">Home</a> site navigation menu</nav><main><h1>${title}</h1><p>${text}</p><p>${anchors}</p></main><footer>copyright footer text</footer></body></html>`;
}
