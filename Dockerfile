# kbqa: the single executable (dist/kbqa, see README "Single executable") in a small glibc image.
# Build stage: install the locked dependencies and compile. `bun run build` also runs the result's
# `selftest` (LanceDB, ONNX Runtime, llama.cpp, canvas) and fails the image build if one cannot load.
FROM oven/bun:1.3.5 AS build
WORKDIR /src
# binutils provides `strip` (LanceDB's addon loses ~35 MB of symbols); the build works without it.
RUN apt-get update && apt-get install -y --no-install-recommends binutils && rm -rf /var/lib/apt/lists/*
COPY package.json bun.lock bunfig.toml tsconfig.json ./
RUN bun install --frozen-lockfile
COPY src ./src
COPY scripts ./scripts
RUN bun run build

# Final stage: the executable alone. It needs glibc, libstdc++ and libgcc_s (the native addons),
# which bookworm-slim has; no Bun, no Node, no node_modules, no shell tools are used at run time.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home kbqa \
 && mkdir -p /data /models \
 && chown kbqa:kbqa /data /models \
 && chmod 700 /data
COPY --from=build /src/dist/kbqa /usr/local/bin/kbqa
USER kbqa
# Natives are unpacked from the executable on first use into ~/.cache/kbqa/runtime = /data/.cache/…
# (~280 MB, once per kbqa version; older versions' copies are pruned).
ENV KBQA_DATA_DIR=/data \
    KBQA_MODELS_DIR=/models \
    KBQA_PORT=8080
VOLUME ["/data", "/models"]
EXPOSE 8080
# `kbqa ping` exits 0 when GET http://127.0.0.1:$KBQA_PORT/pub/ping answers 200.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["kbqa", "ping"]
CMD ["kbqa", "serve", "--host", "0.0.0.0"]
