// One adapter, one task, in a fresh process (so RSS is attributable to that engine alone):
//   node --expose-gc dist/bench/search/one.js <adapter> <cranfield|wordnet> [--quick]
// Prints the task's result as one JSON line. run.ts spawns this for every adapter and task.
import { createAdapter } from './adapters.js';
import { emit } from './stats.js';
import { cranfieldTask, wordnetTask } from './tasks.js';

const [name, task] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const quick = process.argv.includes('--quick');
if (!name || (task !== 'cranfield' && task !== 'wordnet')) {
  console.error('usage: node --expose-gc dist/bench/search/one.js <adapter> <cranfield|wordnet> [--quick]');
  process.exit(2);
}
const adapter = await createAdapter(name);
try {
  const result = task === 'cranfield' ? await cranfieldTask(adapter) : await wordnetTask(adapter, { quick });
  emit({ ...result, quick });
} finally {
  await adapter.close();
}
