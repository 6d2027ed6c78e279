/**
 * The files of a new plugin package (`tessera plugin new`). `pkg` is the runtime's npm name and
 * version, so the scaffold imports and depends on the package it was made by.
 */
export interface ScaffoldInput {
  /** The plugin's name (definition `name`, manifest key). */
  name: string;
  /** The npm package name of the plugin. */
  packageName: string;
  typescript: boolean;
  runtime: { name: string; version: string };
}

/** Versions the scaffold's dev dependencies are pinned to: the ones Tessera itself is tested with on Node 20. */
export const scaffoldDevVersions = { vitest: '4.1.12', typescript: '5.9.3', '@types/node': '20.19.43' } as const;

export function scaffoldFiles(input: ScaffoldInput): Record<string, string> {
  const ext = input.typescript ? 'ts' : 'js';
  const files: Record<string, string> = {
    'package.json': packageJson(input),
    [`index.${ext}`]: pluginSource(input),
    [`test/plugin.test.${ext}`]: testSource(input),
    '.gitignore': 'node_modules/\ndist/\n',
    'README.md': readme(input),
  };
  if (input.typescript) files['tsconfig.json'] = tsconfig();
  return files;
}

function packageJson({ name, packageName, typescript, runtime }: ScaffoldInput): string {
  const range = `^${runtime.version}`;
  const pkg: Record<string, unknown> = {
    name: packageName,
    version: '0.1.0',
    description: `The ${name} plugin for Tessera`,
    type: 'module',
    exports: typescript ? { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } : './index.js',
    files: typescript ? ['dist/index.js', 'dist/index.d.ts'] : ['index.js'],
    engines: { node: '>=20.19.0' },
    keywords: ['tessera-plugin'],
    scripts: typescript ? { build: 'tsc', prepack: 'tsc', test: 'tsc --noEmit && vitest run' } : { test: 'vitest run' },
    peerDependencies: { [runtime.name]: range },
    devDependencies: {
      [runtime.name]: range,
      ...(typescript ? { '@types/node': scaffoldDevVersions['@types/node'], typescript: scaffoldDevVersions.typescript } : {}),
      vitest: scaffoldDevVersions.vitest,
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function pluginSource({ name, typescript, runtime }: ScaffoldInput): string {
  return `import { definePlugin, z } from '${runtime.name}/plugin';

/** The format of the data this plugin stores: raise it, with a migration, when that shape changes. */
const DATA_FORMAT = 1;

export const options = z
  .object({
    /** The word GET /hello answers with. */
    greeting: z.string().min(1).default('Hello'),
  })
  .strict();

export default definePlugin({
  name: '${name}',
  version: '0.1.0',
  options,
  async setup(ctx) {
    // Records the format on a new store; on older data it would run the migration first.
    await ctx.store.format(DATA_FORMAT);
    const visits = ctx.store.db${typescript ? '<number, string>' : ''}('visits');

    ctx.routes.add({
      method: 'GET',
      path: '/hello',
      permission: 'public',
      summary: 'Say hello and count the visits',
      async handler() {
        const count = (visits.get('hello') ?? 0) + 1;
        await visits.put('hello', count);
        return { greeting: \`\${ctx.config.greeting} from \${ctx.name}\`, visits: count };
      },
    });
  },
});
`;
}

function testSource({ name, typescript, runtime }: ScaffoldInput): string {
  const typeImport = typescript ? `, type TestApp` : '';
  const letT = typescript ? 'let t: TestApp;' : 'let t;';
  return `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp${typeImport} } from '${runtime.name}/testing';
import plugin from '../index.js';

describe('${name}', () => {
  ${letT}
  beforeAll(async () => {
    t = await createTestApp({ plugins: [plugin], options: { '${name}': { greeting: 'Hi' } } });
  });
  afterAll(() => t?.close());

  it('answers GET /hello with the configured greeting and counts the visits', async () => {
    const first = await t.fetch('/hello');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, greeting: 'Hi from ${name}', visits: 1 });
    expect(await (await t.fetch('/hello')).json()).toEqual({ ok: true, greeting: 'Hi from ${name}', visits: 2 });
  });

  it('answers an unknown path with the standard error body', async () => {
    const res = await t.fetch('/nowhere');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('route_not_found');
  });

  it('refuses options its schema does not know', async () => {
    await expect(createTestApp({ plugins: [plugin], options: { '${name}': { greting: 'typo' } } })).rejects.toMatchObject({
      code: 'plugin_options_invalid',
    });
  });
});
`;
}

function tsconfig(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      // DOM for the fetch types (Request, Response, BodyInit) and WebAssembly; ESNext.Error for Error.isError.
      lib: ['ES2023', 'ESNext.Error', 'DOM'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      declaration: true,
      // Every declaration file is checked, Tessera's and its dependencies' included.
      skipLibCheck: false,
      types: ['node'],
      outDir: 'dist',
      rootDir: '.',
    },
    include: ['index.ts', 'test'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function readme({ name, packageName, typescript, runtime }: ScaffoldInput): string {
  return `# ${packageName}

The \`${name}\` plugin for [Tessera](https://www.npmjs.com/package/${runtime.name}). It serves \`GET /hello\`.

## Develop

\`\`\`sh
npm install
npm test${typescript ? '\nnpm run build        # compiles index.ts to dist/ (Node 20 does not load .ts plugins)' : ''}
\`\`\`

The tests use \`createTestApp\` from \`${runtime.name}/testing\`: the plugin runs in a real Tessera
app on a temporary store, and \`t.fetch(path)\` goes through the real request pipeline without a port.

## Use it in a deployment

\`\`\`sh
npm install ${runtime.name} ${packageName}
\`\`\`

\`\`\`json
{
  "name": "my-deployment",
  "listeners": [{ "name": "main", "port": 8080, "plugins": ["${name}"] }],
  "plugins": { "${name}": { "module": "${packageName}", "options": { "greeting": "Hello" } } }
}
\`\`\`

\`\`\`sh
npx tessera serve --manifest manifest.json
\`\`\`
`;
}
