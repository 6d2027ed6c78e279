import { describe, expect, it } from 'vitest';
import { extractHtml, extractJson } from '../../../plugins/crawler/extract.js';
import { MAX_URL_LENGTH, normalizeUrl } from '../../../plugins/crawler/normalize-url.js';

describe('normalizeUrl', () => {
  it('drops the fragment, the default port and credentials, lower-cases scheme and host, and sorts the query', () => {
    expect(normalizeUrl('HTTP://Example.COM:80/a/b?z=1&a=2&a=1#part')).toBe('http://example.com/a/b?a=2&a=1&z=1');
    expect(normalizeUrl('https://user:pw@example.com:443/?')).toBe('https://example.com/');
    expect(normalizeUrl('https://example.com:8443/x')).toBe('https://example.com:8443/x');
  });

  it('resolves relative links and refuses what is not http(s)', () => {
    expect(normalizeUrl('../c?b=1#x', 'https://example.com/a/b/')).toBe('https://example.com/a/c?b=1');
    expect(normalizeUrl('mailto:a@example.com')).toBeUndefined();
    expect(normalizeUrl('javascript:void(0)', 'https://example.com/')).toBeUndefined();
    expect(normalizeUrl('http://[not-a-host')).toBeUndefined();
  });

  it('passes over URLs longer than MAX_URL_LENGTH (they are store keys)', () => {
    const base = 'https://example.com/';
    expect(normalizeUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length))).toHaveLength(MAX_URL_LENGTH);
    expect(normalizeUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length + 1))).toBeUndefined();
  });

  it('applies the trailing-slash policy, leaving the root and file names alone', () => {
    expect(normalizeUrl('https://example.com/docs/', undefined, 'strip')).toBe('https://example.com/docs');
    expect(normalizeUrl('https://example.com/', undefined, 'strip')).toBe('https://example.com/');
    expect(normalizeUrl('https://example.com/docs', undefined, 'add')).toBe('https://example.com/docs/');
    expect(normalizeUrl('https://example.com/file.html', undefined, 'add')).toBe('https://example.com/file.html');
    expect(normalizeUrl('https://example.com/docs/', undefined, 'keep')).toBe('https://example.com/docs/');
  });
});

describe('extractHtml', () => {
  const page = `<!DOCTYPE html><html lang="fr"><head><title> Le  port </title><base href="https://example.com/base/">
    <meta name="description" content="Un port &amp; ses bateaux"><link rel="canonical" href="/canon"><style>p{color:red}</style></head>
    <body><header><h1>Site name</h1><a href="/header-link">h</a></header><nav><a href="nav">menu</a></nav>
    <main><h2>Bateaux</h2><p>Les bateaux<br>arrivent.</p><script>var hidden = 1;</script><a href="rel" rel="nofollow">nf</a> <a href="page?b=2&a=1">p</a> <a href="#top">top</a></main>
    <footer>Mentions</footer></body></html>`;

  it('reads title, description, language, canonical, headings and the main text without furniture, scripts or styles', () => {
    const out = extractHtml(page, 'https://example.com/here');
    expect(out).toMatchObject({
      title: 'Le port',
      description: 'Un port & ses bateaux',
      lang: 'fr',
      canonical: 'https://example.com/canon',
      noindex: false,
      nofollow: false,
    });
    expect(out.headings).toEqual(['Site name', 'Bateaux']);
    expect(out.content).toBe('Bateaux Les bateaux arrivent. nf p top');
  });

  it('resolves links against <base href>, skipping nofollow links and fragments', () => {
    const out = extractHtml(page, 'https://example.com/here');
    expect(out.links).toEqual(['https://example.com/header-link', 'https://example.com/base/nav', 'https://example.com/base/page?b=2&a=1']);
  });

  it('falls back to the body, and honours meta robots', () => {
    const out = extractHtml(
      '<html><head><meta name="robots" content="noindex, nofollow"></head><body><div>Plain <b>body</b></div></body></html>',
      'https://example.com/',
    );
    expect(out).toMatchObject({ content: 'Plain body', noindex: true, nofollow: true, title: '' });
  });

  it('survives broken markup', () => {
    const out = extractHtml('<p>unclosed <b>bold <i>italic</p><a href="/x">x', 'https://example.com/');
    expect(out.content).toBe('unclosed bold italic x');
    expect(out.links).toEqual(['https://example.com/x']);
  });
});

describe('extractJson', () => {
  it('indexes string values and takes title and description fields', () => {
    expect(extractJson('{"title":"T","description":"D","n":3,"tags":["a","b"],"nested":{"x":"y"}}')).toMatchObject({
      title: 'T',
      description: 'D',
      content: 'T D a b y',
    });
  });
});
