import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web app: built into dist/web, served by the API under /app/ (api/routes/web-app.ts) with a
 * strict Content-Security-Policy, so the build emits no inline script or style and loads nothing
 * from another origin.
 */
export default defineConfig({
  root: here,
  // Relative: the page works wherever a proxy mounts the API (PUBLIC_BASE_URL with a path).
  base: './',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Vite's preload helper would otherwise be inlined into the page for dynamic imports.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
