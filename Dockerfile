# Voice Gateway: the gateway, its web console and the Android app's APK in one image.
#
#   docker build -t voice-gateway .
#   docker run -d -p 8080:8080 -v vg-data:/data voice-gateway
#
# The APK is signed with your own keystore when you pass it as build secrets (keep it: Android
# installs an update only over an app signed with the same key):
#   docker build --secret id=android_keystore,src=my.p12 \
#     --secret id=android_keystore_password,src=my.p12.password --build-arg ANDROID_KEY_ALIAS=<alias> -t voice-gateway .
# Without them a key is made for this build only, and the build says so loudly. See README.md.
ARG NODE_IMAGE=node:22-bookworm-slim

# ---- Every npm dependency, for the console's build and the APK's build scripts ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
# `npm install`, not `npm ci` (see .ci/run); the lock file still pins every version.
RUN npm install --ignore-scripts --no-audit --no-fund --loglevel=error

# ---- The production dependencies: the same tree, without the development ones ----
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund --loglevel=error

# ---- The web console ----
FROM deps AS console
COPY console ./console
COPY src ./src
RUN npm run build:console

# ---- The Android app, built on Debian with a JDK; its toolchain comes from Debian's mirror ----
FROM ${NODE_IMAGE} AS apk
# Slim images lack the man directories that the JDK's alternatives link into.
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openjdk-17-jdk-headless \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY --from=deps /src/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY scripts/android ./scripts/android
RUN npx tsx scripts/android/cli.ts toolchain
COPY android ./android
# The keystore and its password arrive as secret mounts: they never enter a layer or the history.
# A secret is not part of the build cache's key, but this argument is: it is required with your
# keystore, so an APK signed with a build-time key is never taken from the cache for a build that
# names your keystore (or the other way round). Change it, or use --no-cache, when you change keystores.
ARG ANDROID_KEY_ALIAS=
RUN --mount=type=secret,id=android_keystore --mount=type=secret,id=android_keystore_password \
    set -e; \
    if [ -s /run/secrets/android_keystore ] && [ -z "$ANDROID_KEY_ALIAS" ]; then \
      echo 'android: with the android_keystore secret, also pass --build-arg ANDROID_KEY_ALIAS=<the key alias in your keystore>' >&2; exit 1; \
    fi; \
    if [ -n "$ANDROID_KEY_ALIAS" ] && [ ! -s /run/secrets/android_keystore ]; then \
      echo 'android: ANDROID_KEY_ALIAS is set but no keystore came with --secret id=android_keystore,src=<your keystore>' >&2; exit 1; \
    fi; \
    if [ -s /run/secrets/android_keystore ]; then \
      export VG_ANDROID_KEYSTORE=/run/secrets/android_keystore; \
      VG_ANDROID_KEYSTORE_PASSWORD="$(cat /run/secrets/android_keystore_password 2>/dev/null || true)"; \
      export VG_ANDROID_KEYSTORE_PASSWORD; \
      export VG_ANDROID_KEY_ALIAS="$ANDROID_KEY_ALIAS"; \
      echo 'android: signing with your keystore (secret android_keystore)' > android-signing.txt; \
    else \
      echo 'android: signed with a key made for THIS BUILD ONLY: a later build signs with another key, and Android will not install it over this app (uninstall first, losing its pairing). Pass your own keystore with --secret id=android_keystore,... (README.md).' > android-signing.txt; \
      printf '\n%s\n%s\n%s\n\n' '**********************************************************************' "$(cat android-signing.txt)" '**********************************************************************'; \
    fi; \
    npm run build:android; \
    rm -rf android/.keystore

# ---- The gateway: production dependencies only, as the unprivileged `node` user ----
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
RUN mkdir -p /data && chown node:node /data
COPY package.json package-lock.json tsconfig.json ./
COPY --from=prod-deps /src/node_modules ./node_modules
COPY bin ./bin
COPY src ./src
COPY --from=console /src/console/dist ./console/dist
# Served at /app/voice-gateway.apk and by the install QR code on the console's Phones page.
COPY --from=apk /src/android/build/voice-gateway.apk ./android/build/voice-gateway.apk
COPY --from=apk /src/android-signing.txt ./android/build/signing.txt
VOLUME /data
USER node
EXPOSE 8080
# The gateway finishes its calls' bookkeeping and closes within 5 s of SIGTERM (docker stop waits 10 s).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM/SIGINT itself. `docker run IMAGE phone …`, `reset-password …`
# and `--help` reach the voice-gateway command.
ENTRYPOINT ["node", "/app/bin/voice-gateway.js"]
CMD ["start"]
