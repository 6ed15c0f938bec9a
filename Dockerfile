# One image for the three processes: `node dist/src/http/api/server.js` (api, the default command),
# `node dist/src/worker/worker-main.js` (worker) and `node dist/src/http/site/server.js` (site).
# Node 20 (20.12 or later), as package.json's engines say; node:20-bookworm-slim is the newest 20.
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin ./bin
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
COPY bench ./bench
RUN npm run build && npm prune --omit=dev
# Circulation pictures use two of the nine weights of the CJK font package (about 10 MB each);
# the other seven go (src/domain/circulation-images/cjk-font.ts names the two).
RUN find node_modules/@expo-google-fonts/noto-sans-sc -name '*.ttf' \
      ! -name 'NotoSansSC_400Regular.ttf' ! -name 'NotoSansSC_700Bold.ttf' -delete
# The HTML pages serve one weight of the web-font package, as WOFF2 slices (src/http/cjk-web-font.ts
# names them): its other weights and its WOFF copies go (71 of its 75 MB).
RUN find node_modules/@fontsource/noto-sans-sc/files -type f ! -name '*-400-normal.woff2' -delete

FROM ${NODE_IMAGE}
# /app stays root-owned (the code cannot be changed by the process running it); what the
# processes write goes to DATA_DIR (/data: the generated OAuth key secret when OAUTH_KEY_SECRET
# is unset, uploads, PGlite when DATABASE_URL is unset) and the inbox (/inbox), both owned by
# `node`. Mounted as empty named volumes, they take this ownership (see docker-compose.yml).
ENV NODE_ENV=production DATA_DIR=/data INBOX_DIR=/inbox
RUN mkdir -p /data /inbox && chown node:node /data /inbox
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The documentation site's block theme (templates and parts read at start).
COPY --from=build /app/src/domain/templates/theme ./src/domain/templates/theme
# The web app's browser sources: bundled by esbuild when the API starts (hashed, compressed).
COPY --from=build /app/src/http/web/client ./src/http/web/client
COPY package.json ./
# `npx emutrack ...` in a container runs the package's own bin, and npx first installs the
# package into its cache, which runs `prepare` (the build): the image has no compiler, and dist/
# is built already, so the image's package.json has no `prepare`.
RUN npm pkg delete scripts.prepare
# The site's first contents are emutrack's own documentation (src/http/site/docs/docs-source.ts).
COPY README.md ./
COPY docs ./docs
COPY bin ./bin
COPY migrations ./migrations
COPY fixtures ./fixtures
USER node
VOLUME ["/data"]
EXPOSE 3000 3001
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/src/healthcheck/healthcheck-main.js", "api"]
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=512", "dist/src/http/api/server.js"]
