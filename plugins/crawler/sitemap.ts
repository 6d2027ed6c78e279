import { parseDocument } from 'htmlparser2';

type XmlNode = ReturnType<typeof parseDocument>['children'][number];

/**
 * `<loc>` values of a sitemap, parsed as XML by htmlparser2: page URLs of a `<urlset>`, and nested
 * sitemaps of a `<sitemapindex>`. Malformed XML yields what could be read.
 */
export function parseSitemap(xml: string): { pages: string[]; sitemaps: string[] } {
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
