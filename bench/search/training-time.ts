// corpus-lsa-v1 training time (the SVD in document space, one power iteration) at rank 384 and at
// the default 128, same process, each collection: `node dist/bench/search/training-time.js`.
import 'reflect-metadata';
import { getAnalyzer } from '../../plugins/search/analysis/analyzer.js';
import { trainCorpusLsa } from '../../plugins/search/embedders/corpus-lsa.js';
import { COLLECTIONS, loadCollection } from './data.js';
import { emit, round } from './stats.js';

const analyzers = [getAnalyzer('english')];
for (const collection of COLLECTIONS) {
  const texts = loadCollection(collection).docs.map((d) => `${d.title}\n${d.text}`);
  const time = async (f: () => Promise<unknown>): Promise<number> => {
    const t0 = performance.now();
    await f();
    return round((performance.now() - t0) / 1000, 2);
  };
  const now384 = await time(() => trainCorpusLsa(texts, analyzers, 384, { rank: 384 }));
  const now128 = await time(() => trainCorpusLsa(texts, analyzers, 384));
  emit({ bench: 'training-time', collection, docs: texts.length, seconds: { rank384: now384, rank128: now128 } });
}
