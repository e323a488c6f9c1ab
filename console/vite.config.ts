import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = decodeURIComponent(new URL('.', import.meta.url).pathname);
/** `npm run console:dev` proxies the API to a gateway running on this address. */
const gateway = 'http://127.0.0.1:8080';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: {
      '/v1': { target: gateway, ws: true },
      '/openapi.json': gateway,
      '/docs': gateway,
      '/health': gateway,
    },
  },
});
