#!/usr/bin/env bash
# Prepares the real data sets the suites read, from Debian packages (installed here where
# missing), into ./data (or $MEMSCOPE_DATA): nothing is fetched at run time.
#   kmer/velvet_reads.fa.gz  velvet-example: 142,858 simulated 35-base reads (FASTA)
#   kmer/lambda_reads.fq.gz  bowtie2-examples: 10,000 simulated Illumina reads of phage lambda (FASTQ)
#   kmer/klebsiella.fa.gz    kleborate-examples: four Klebsiella pneumoniae assemblies, 22 Mbp
#   photos/NAME.pam.gz       python3-skimage's colour photographs as 8-bit RGB (PAM): astronaut,
#                            coffee, chelsea, rocket, hubble_deep_field, retina (decoded with
#                            python3-pil; the skimage package is unpacked, not installed, since
#                            its dependencies take 400 MB)
# Idempotent: a data set already there is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${MEMSCOPE_DATA:-data}"

packages=(velvet-example bowtie2-examples kleborate-examples xz-utils gzip python3-pil)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "data: the Debian packages ${missing[*]} are missing; install them (as root) and run this again" >&2
    exit 1
  fi
  echo "data: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$out/kmer"
# prepare NAME COMMAND...: runs COMMAND (which writes the data set's text to stdout) into NAME,
# compressed, through a temporary file so that an interrupted run leaves no truncated set.
prepare() {
  local name="$out/$1"
  shift
  [ -s "$name" ] && return 0
  "$@" | gzip -6 > "$name.tmp"
  mv "$name.tmp" "$name"
  echo "data: wrote $name"
}
prepare kmer/velvet_reads.fa.gz xz -dc /usr/share/doc/velvet/examples/test_reads.fa.xz
prepare kmer/lambda_reads.fq.gz gzip -dc /usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz
prepare kmer/klebsiella.fa.gz xz -dc /usr/share/doc/kleborate/examples/data/{Klebs_HS11286,Klebs_Kp1084,MGH78578,NTUH-K2044}.fna.xz

# Photographs: from an installed python3-skimage, else from its package unpacked here.
photos=(astronaut.png coffee.png chelsea.png rocket.jpg hubble_deep_field.jpg retina.jpg)
mkdir -p "$out/photos"
wanted=0
for p in "${photos[@]}"; do [ -s "$out/photos/${p%.*}.pam.gz" ] || wanted=1; done
if ((wanted)); then
  skdata=/usr/lib/python3/dist-packages/skimage/data
  if [ ! -d "$skdata" ]; then
    work=$(mktemp -d)
    chmod 755 "$work"  # apt downloads as its own user
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && apt-get download -qq python3-skimage >/dev/null && dpkg-deb -x python3-skimage_*.deb root)
    skdata="$work/root/usr/lib/python3/dist-packages/skimage/data"
  fi
  for p in "${photos[@]}"; do
    prepare "photos/${p%.*}.pam.gz" /usr/bin/python3 -c '
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
sys.stdout.buffer.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n" % (w, h))
sys.stdout.buffer.write(im.tobytes())' "$skdata/$p"
  done
fi
