# One image for the API and the worker; the command picks which process runs.
# Dependencies are installed in a stage with a compiler: better-sqlite3 (the embedded record)
# builds from source where its prebuilt binary cannot be downloaded.
FROM node:20.20-bookworm-slim AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM node:20.20-bookworm-slim
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
ENV NODE_ENV=production HOST=0.0.0.0
EXPOSE 3000
CMD ["npm", "run", "api"]
