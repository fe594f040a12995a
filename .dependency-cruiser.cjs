/**
 * Import cycles, checked by `pnpm depcruise` (also part of `pnpm lint` and `.ci/run`).
 * Type-only imports are left out (`tsPreCompilationDeps: false`): they vanish at compile
 * time and cannot make a module wait for another to load.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A file must not import itself back through other files.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment:
        'Folders (a service’s feature folders, packages) must not import each other in a ' +
        'circle: imports go down, from composition to features to shared code.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)dist/', '(^|/)node_modules/', '(^|/)data/'] },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      // Workspace packages resolve to their sources, as in Jest.
      conditionNames: ['source', 'import', 'default'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
