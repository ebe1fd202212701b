/**
 * The architecture rules of src/ (docs/development.md "Bounded contexts"), checked by dependency-cruiser over every
 * .ts and .tsx file, value and type imports alike: `npm run lint:arch`, part of `npm test`. test/architecture.test.ts
 * plants one violation of each rule in a copy of src/ and expects this configuration to name it.
 *
 * The layers, each importing only those before it in this list (siblings on one line do not import each other,
 * except where an arrow says so):
 *   platform (with its shared core)
 *   identity
 *   organisations
 *   consent
 *   notifications
 *   federation → provider (provider may import federation)
 *   accounts
 *   web
 *   app
 */

/** For each top-level folder, the top-level folders it may import besides itself. */
const MAY_IMPORT = {
  platform: [],
  identity: ['platform'],
  organisations: ['platform', 'identity'],
  consent: ['platform', 'identity', 'organisations'],
  notifications: ['platform', 'identity', 'organisations', 'consent'],
  federation: ['platform', 'identity', 'organisations'],
  provider: ['platform', 'identity', 'organisations', 'federation'],
  accounts: ['platform', 'identity', 'organisations', 'consent', 'notifications', 'federation', 'provider'],
  web: ['platform', 'identity', 'organisations', 'consent', 'notifications', 'federation', 'provider', 'accounts'],
  app: ['platform', 'identity', 'organisations', 'consent', 'notifications', 'federation', 'provider', 'accounts', 'web'],
};

/** Stores: the modules that hold a folder's SQL, by name. */
const STORES = ['/store[.]ts$', '-store[.]ts$'];

/** The bounded contexts: each is imported by the others only through its `index.ts`. */
const CONTEXTS = ['identity', 'organisations', 'consent', 'notifications', 'federation', 'provider', 'accounts', 'web'];

const layerRules = Object.entries(MAY_IMPORT).map(([folder, allowed]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder}/ imports only ${allowed.length ? allowed.map((a) => `src/${a}/`).join(', ') : 'itself'} (docs/development.md "Layers").`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: '^src/', pathNot: `^src/(${[folder, ...allowed].join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'top-level-folders',
      comment:
        'src/ holds only the folders of the layers: no loose file, and no new top-level folder without its place ' +
        'in MAY_IMPORT.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${Object.keys(MAY_IMPORT).join('|')})/` },
      to: {},
    },
    {
      name: 'context-entry-only',
      comment:
        'Another bounded context is imported only through its index.ts, never its internals or its store ' +
        '(docs/development.md "Bounded contexts").',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: `^src/(${CONTEXTS.join('|')})/`, pathNot: ['^src/$1/', '^src/[^/]+/index[.]ts$'] },
    },
    {
      name: 'no-own-entry',
      comment: "A context's own modules import each other directly, never their context's index.ts (a load-order cycle).",
      severity: 'error',
      from: { path: '^src/([^/]+)/.+/' },
      to: { path: '^src/$1/index[.]ts$' },
    },
    {
      name: 'store-private',
      comment:
        "A store (store.ts, *-store.ts: the SQL) is imported only by modules of its own context (docs/development.md " +
        '"Inside a context").',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: STORES, pathNot: '^src/$1/' },
    },
    {
      name: 'entry-exposes-no-store',
      comment: "A context's index.ts re-exports no store: other contexts never reach its SQL.",
      severity: 'error',
      from: { path: '^src/[^/]+/index[.]ts$' },
      to: { path: STORES },
    },
    {
      name: 'no-folder-cycle',
      comment: 'No cycle between folders, counting type imports too (docs/development.md "Layers").',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-runtime-cycle',
      comment: 'No cycle of value imports between modules: one would make load order matter (a module read half-built).',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    // TypeScript 7 has no compiler API for dependency-cruiser to parse with; swc parses .ts and .tsx and keeps
    // type-only imports as dependencies of type `type-only` (so `tsPreCompilationDeps`, which asks for tsc, is not set).
    parser: 'swc',
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
