import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Served by the gateway under /console/ (services/gateway/src/routes/console-app.ts).
export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The page's Content-Security-Policy is `default-src 'self'`: no asset may be inlined as a data: URL.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
  },
});
