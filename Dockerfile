# realmt on Debian 12, CPU only: builds the portable programs (REALMT_NATIVE=OFF: any x86-64 CPU,
# kernels for AVX2 / AVX-512 picked at run time), runs the test suite, installs to /opt/realmt.
#   docker build -t realmt .            (podman build works the same; ~30 min on 2 cores)
#   docker run --rm -v "$PWD:/work" -w /work realmt realmt-translate -m model.safetensors -v vocab.spm -i in.txt
# The test suite runs during the build; tests that need ../shared/data skip, the sacreBLEU
# conformance run installs sacreBLEU from PyPI into the build folder (network needed).
FROM debian:12
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src/realmt
# The Debian packages first (tools/deps.txt: the build and test tiers), so that a source change
# reuses this layer.
COPY tools/deps.txt tools/install-deps tools/
RUN tools/install-deps test && rm -rf /var/lib/apt/lists/*
COPY . .
RUN REALMT_CUDA=OFF REALMT_NATIVE=OFF tools/test && cmake --install build --prefix /opt/realmt
ENV PATH=/opt/realmt/bin:$PATH
CMD ["realmt-translate", "--help"]
