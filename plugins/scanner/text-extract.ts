import { Parser } from 'htmlparser2';

/** How a file's content is read: its extension decides, and a NUL byte makes any file binary. */
export type ContentKind = 'text' | 'markdown' | 'html' | 'json' | 'csv' | 'code' | 'binary';

const byExtension: Record<string, ContentKind> = {};
const assign = (kind: ContentKind, extensions: string): void => {
  for (const ext of extensions.split(' ')) byExtension[ext] = kind;
};
assign('text', 'txt text log rst adoc org');
assign('markdown', 'md markdown mdx');
assign('html', 'html htm xhtml');
assign('json', 'json jsonl ndjson geojson');
assign('csv', 'csv tsv');
assign(
  'code',
  'ts tsx mts cts js jsx mjs cjs py pyi go java kt kts scala rs c h cc cpp cxx hpp hh cs fs rb php pl pm lua r swift m mm dart ex exs erl hs clj sh bash zsh fish ps1 sql css scss sass less vue svelte astro yaml yml toml ini cfg conf xml xsl gradle cmake mk proto graphql gql tf',
);
for (const name of ['makefile', 'dockerfile', 'license', 'readme', 'changelog'])
  byExtension[`name:${name}`] = name === 'makefile' || name === 'dockerfile' ? 'code' : 'text';

/** The kind a file's name promises (before its bytes are looked at). */
export function kindOfName(fileName: string): ContentKind {
  const lower = fileName.toLowerCase();
  const dot = lower.lastIndexOf('.');
  if (dot <= 0) return byExtension[`name:${lower}`] ?? 'binary';
  return byExtension[lower.slice(dot + 1)] ?? 'binary';
}

export interface Extracted {
  title?: string;
  content: string;
}

/** A NUL byte in the first 8 KiB: what git and grep take as the sign of a binary file. */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, 8192).includes(0);
}

/** Text for the index from a file's (possibly truncated) bytes. */
export function extractText(kind: Exclude<ContentKind, 'binary'>, bytes: Uint8Array): Extracted {
  const text = new TextDecoder('utf-8').decode(bytes);
  switch (kind) {
    case 'html':
      return fromHtml(text);
    case 'markdown': {
      const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text);
      return heading ? { title: heading[1]!, content: text } : { content: text };
    }
    case 'json':
      return fromJson(text);
    default:
      return { content: text };
  }
}

const hiddenElements = new Set(['script', 'style', 'noscript', 'template', 'svg']);
const blockElements = new Set([
  'p',
  'div',
  'br',
  'li',
  'tr',
  'td',
  'th',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'section',
  'article',
  'header',
  'footer',
  'pre',
  'blockquote',
]);

/** The visible text of an HTML page and its `<title>`, read by a real HTML parser. */
function fromHtml(html: string): Extracted {
  const parts: string[] = [];
  let title = '';
  let inTitle = false;
  let hidden = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (hiddenElements.has(name)) hidden++;
        if (name === 'title') inTitle = true;
        if (blockElements.has(name)) parts.push('\n');
      },
      onclosetag(name) {
        if (hiddenElements.has(name)) hidden = Math.max(0, hidden - 1);
        if (name === 'title') inTitle = false;
      },
      ontext(data) {
        if (inTitle) title += data;
        else if (hidden === 0) parts.push(data);
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  const content = parts
    .join('')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
  const cleanTitle = title.replace(/\s+/g, ' ').trim();
  return cleanTitle ? { title: cleanTitle, content } : { content };
}

/** The string values of a JSON document (keys are structure, not content); raw text when it does not parse. */
function fromJson(text: string): Extracted {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { content: text };
  }
  const strings: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean') strings.push(String(v));
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(value);
  const title =
    value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { title?: unknown }).title === 'string'
      ? (value as { title: string }).title
      : undefined;
  return title ? { title, content: strings.join('\n') } : { content: strings.join('\n') };
}
