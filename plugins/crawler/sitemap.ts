import { parseDocument } from 'htmlparser2';

type XmlNode = ReturnType<typeof parseDocument>['children'][number];

/** `<loc>` values of a sitemap: page URLs of a `<urlset>`, and nested sitemaps of a `<sitemapindex>`. */
function locations(xml: string): { pages: string[]; sitemaps: string[] } {
  const document = parseDocument(xml, { xmlMode: true });
  const pages: string[] = [];
  const sitemaps: string[] = [];
  const visit = (nodes: readonly XmlNode[], parent: string): void => {
    for (const node of nodes) {
      if (!('name' in node) || !('children' in node)) continue;
      const name = node.name.toLowerCase().replace(/^.*:/, '');
      if (name === 'loc') {
        const text = (node.children as XmlNode[])
          .map((c) => ('data' in c ? c.data : ''))
          .join('')
          .trim();
        if (text) (parent === 'sitemap' ? sitemaps : pages).push(text);
        continue;
      }
      visit(node.children as XmlNode[], name);
    }
  };
  visit(document.children as XmlNode[], '');
  return { pages, sitemaps };
}

/**
 * The page URLs the sitemaps list (robots.txt `Sitemap:` lines), following sitemap indexes one level
 * down, parsed as XML by htmlparser2. Unreachable or malformed sitemaps are passed over.
 */
export async function readSitemaps(
  urls: readonly string[],
  fetchText: (url: string) => Promise<string | undefined>,
  options: { maxUrls: number; maxSitemaps?: number },
): Promise<string[]> {
  const found: string[] = [];
  const queue = urls.map((url) => ({ url, level: 0 }));
  const seen = new Set<string>();
  let fetched = 0;
  while (queue.length > 0 && found.length < options.maxUrls && fetched < (options.maxSitemaps ?? 20)) {
    const { url, level } = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    fetched++;
    const xml = await fetchText(url);
    if (xml === undefined) continue;
    const { pages, sitemaps } = locations(xml);
    found.push(...pages.slice(0, options.maxUrls - found.length));
    if (level === 0) for (const nested of sitemaps) queue.push({ url: nested, level: 1 });
  }
  return found;
}
