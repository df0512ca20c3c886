# Placeholder until the single-executable issue: runs the source checkout with Bun.
FROM oven/bun:1.3.5
WORKDIR /app
COPY . .
RUN bun install --frozen-lockfile
EXPOSE 8080
CMD ["bun", "src/cli.ts", "serve", "--host", "0.0.0.0"]
