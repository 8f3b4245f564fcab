# syntax=docker/dockerfile:1
# The baton binary in a slim image, run as an unprivileged user.
#
#   docker build -t baton .
#   docker run --rm --init -v "$PWD/baton.toml:/etc/baton/baton.toml:ro" baton
#
# The agent starts commands; give the container an init that reaps orphaned processes
# (`docker run --init`; in Kubernetes, `shareProcessNamespace: true` as in deploy/kubernetes).

FROM rust:1.94-slim-trixie AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p baton-cli \
    && cp target/release/baton /usr/local/bin/baton

FROM debian:trixie-slim
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /var/lib/baton baton
COPY --from=build /usr/local/bin/baton /usr/local/bin/baton
USER 10001:10001
# The default backend, sqlite://baton.db, lands here.
WORKDIR /var/lib/baton
EXPOSE 8080
ENTRYPOINT ["baton"]
CMD ["agent", "--config", "/etc/baton/baton.toml"]
