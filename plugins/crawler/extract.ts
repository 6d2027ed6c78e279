import { parseDocument } from 'htmlparser2';

type DomDocument = ReturnType<typeof parseDocument>;
type DomNode = DomDocument['children'][number];
type DomElement = Extract<DomNode, { name: string; attribs: Record<string, string> }>;

/** What a page gives the index and the frontier. */
export interface ExtractedPage {
  title: string;
  description: string;
  lang: string;
  /** Main text: without navigation, header, footer, asides, scripts and styles. */
  content: string;
  headings: string[];
  /** Outgoing links, resolved against the page (or its `<base href>`), in document order. */
  links: string[];
  /** `<link rel="canonical">`, resolved. */
  canonical?: string;
  /** `<meta name="robots">`: `noindex` keeps the page out of the index, `nofollow` its links out of the frontier. */
  noindex: boolean;
  nofollow: boolean;
}

/** Elements whose text is never content. */
const opaque = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas']);
const hidden = new Set([...opaque, 'head', 'title']);
/** Page furniture left out of the main text. */
const furniture = new Set(['nav', 'header', 'footer', 'aside', 'form', 'menu', 'dialog']);
const blocks = new Set([
  'address',
  'article',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);
const headingTags = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function isElement(node: DomNode): node is DomElement {
  return 'name' in node && 'attribs' in node;
}

function isText(node: DomNode): node is Extract<DomNode, { type: 'text'; data: string }> {
  return node.type === 'text';
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Text of a subtree; block elements and `<br>` break words apart, hidden ones are left out. */
function textOf(node: DomNode, skip: ReadonlySet<string>, out: string[] = []): string[] {
  if (isText(node)) {
    out.push(node.data);
    return out;
  }
  if (!isElement(node) && !('children' in node)) return out;
  if (isElement(node)) {
    if (skip.has(node.name)) return out;
    if (blocks.has(node.name)) out.push(' ');
  }
  for (const child of (node as { children: DomNode[] }).children) textOf(child, skip, out);
  if (isElement(node) && blocks.has(node.name)) out.push(' ');
  return out;
}

function walk(nodes: readonly DomNode[], visit: (element: DomElement) => boolean | void): void {
  for (const node of nodes) {
    if (!isElement(node)) continue;
    if (visit(node) === false) continue;
    walk(node.children as DomNode[], visit);
  }
}

function resolve(href: string | undefined, base: string): string | undefined {
  if (href === undefined) return undefined;
  const trimmed = href.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const relTokens = (value: string | undefined): string[] => (value ?? '').toLowerCase().split(/\s+/).filter(Boolean);

/** Reads a page with htmlparser2 (a real, forgiving HTML parser): metadata, main text, headings, links. */
export function extractHtml(html: string, pageUrl: string): ExtractedPage {
  const document = parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  let title = '';
  let description = '';
  let lang = '';
  let baseHref: string | undefined;
  let canonical: string | undefined;
  let noindex = false;
  let nofollow = false;
  const anchors: Array<{ href: string; rel: string[] }> = [];
  const headings: string[] = [];
  const mains: DomElement[] = [];
  let body: DomElement | undefined;

  walk(document.children as DomNode[], (el) => {
    switch (el.name) {
      case 'html':
        if (el.attribs.lang) lang = el.attribs.lang.trim();
        break;
      case 'title':
        if (title === '') title = collapse(textOf(el, new Set()).join(''));
        return false;
      case 'base':
        baseHref ??= el.attribs.href;
        break;
      case 'meta': {
        const name = (el.attribs.name ?? '').toLowerCase();
        const content = el.attribs.content ?? '';
        if (name === 'description' && description === '') description = collapse(content);
        else if (name === 'robots' || name === 'tessera') {
          const directives = relTokens(content.replace(/,/g, ' '));
          if (directives.includes('noindex') || directives.includes('none')) noindex = true;
          if (directives.includes('nofollow') || directives.includes('none')) nofollow = true;
        } else if ((el.attribs['http-equiv'] ?? '').toLowerCase() === 'content-language' && lang === '') lang = content.split(',')[0]!.trim();
        break;
      }
      case 'link':
        if (relTokens(el.attribs.rel).includes('canonical') && canonical === undefined) canonical = el.attribs.href;
        break;
      case 'a':
      case 'area':
        if (el.attribs.href !== undefined) anchors.push({ href: el.attribs.href, rel: relTokens(el.attribs.rel) });
        break;
      case 'body':
        body ??= el;
        break;
      case 'main':
      case 'article':
        mains.push(el);
        break;
      default:
        if (headingTags.has(el.name)) {
          const text = collapse(textOf(el, hidden).join(''));
          if (text) headings.push(text);
        }
        if (opaque.has(el.name)) return false;
    }
    return true;
  });

  let base = pageUrl;
  const resolvedBase = resolve(baseHref, pageUrl);
  if (resolvedBase) base = resolvedBase;
  // The main text: <main>/<article> where the page marks it (outermost ones only), else the body.
  const outerMains = mains.filter((m) => !mains.some((other) => other !== m && isInside(m, other)));
  const roots: DomNode[] = outerMains.length > 0 ? outerMains : body ? [body] : (document.children as DomNode[]);
  const skip = new Set([...hidden, ...furniture]);
  const content = collapse(roots.flatMap((r) => textOf(r, skip)).join(''));
  const links: string[] = [];
  for (const a of anchors) {
    if (a.rel.includes('nofollow')) continue;
    const url = resolve(a.href, base);
    if (url) links.push(url);
  }
  const canonicalUrl = resolve(canonical, base);
  return { title, description, lang, content, headings, links, ...(canonicalUrl ? { canonical: canonicalUrl } : {}), noindex, nofollow };
}

function isInside(node: DomNode, ancestor: DomNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

/** A plain-text page: its first non-empty line stands in for a title. */
export function extractText(text: string): ExtractedPage {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return { title: collapse(first).slice(0, 200), description: '', lang: '', content: collapse(text), headings: [], links: [], noindex: false, nofollow: false };
}

/** A JSON page: its string values (keys and structure carry no text), and a `title` or `name` field if it has one. */
export function extractJson(text: string): ExtractedPage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return extractText(text);
  }
  const strings: string[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > 32) return;
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) for (const item of v) visit(item, depth + 1);
    else if (v !== null && typeof v === 'object') for (const item of Object.values(v)) visit(item, depth + 1);
  };
  visit(value, 0);
  const record = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const title = typeof record.title === 'string' ? record.title : typeof record.name === 'string' ? record.name : '';
  const description = typeof record.description === 'string' ? record.description : '';
  return {
    title: collapse(title),
    description: collapse(description),
    lang: '',
    content: collapse(strings.join(' ')),
    headings: [],
    links: [],
    noindex: false,
    nofollow: false,
  };
}
