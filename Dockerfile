# One image for both processes: `node dist/src/api/server.js` (api) and
# `node dist/src/queue/worker-main.js` (worker).
FROM node:20-bookworm-slim AS build
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
# the other seven go (src/circulation-images/cjk-font.ts names the two).
RUN find node_modules/@expo-google-fonts/noto-sans-sc -name '*.ttf' \
      ! -name 'NotoSansSC_400Regular.ttf' ! -name 'NotoSansSC_700Bold.ttf' -delete

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The documentation site's block theme (templates and parts read at start).
COPY --from=build /app/src/templates/theme ./src/templates/theme
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY fixtures ./fixtures
USER node
CMD ["node", "--max-semi-space-size=4", "dist/src/api/server.js"]
