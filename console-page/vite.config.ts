import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The console's page, bundled into dist/console-page (served by src/console/server.ts); nothing comes from a CDN. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console-page', import.meta.url)),
    emptyOutDir: true,
    // The strict CSP allows no inline script or style: everything is a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
