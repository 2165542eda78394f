# One image for the API and the worker; the command picks which process runs.
FROM node:20.20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NODE_ENV=production HOST=0.0.0.0
EXPOSE 3000
CMD ["npm", "run", "api"]
