#!/bin/sh
# memscope-kmer-count against Jellyfish on velvet's reads: every k-mer's count equal, at k 9
# (the dense table), 21 and 31 (the hash table). Skips (77) without a GPU, Jellyfish or the
# data set. Usage: kmer_count_vs_jellyfish.sh EXAMPLE DATA_DIR
set -u
ex=$1
reads=$2/kmer/velvet_reads.fa.gz
command -v jellyfish > /dev/null 2>&1 || { echo "skip: jellyfish is not installed (scripts/setup.sh)"; exit 77; }
[ -s "$reads" ] || { echo "skip: no $reads (scripts/data.sh)"; exit 77; }
nvidia-smi -L > /dev/null 2>&1 || { echo "skip: no GPU answers nvidia-smi"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$reads" > "$tmp/reads.fa"
for k in 9 21 31; do
  "$ex" -k "$k" --dump "$tmp/reads.fa" > "$tmp/ours.txt" || { echo "memscope-kmer-count failed at k=$k"; exit 1; }
  jellyfish count -C -m "$k" -s 16M -t 2 -o "$tmp/counts.jf" "$tmp/reads.fa" || exit 1
  jellyfish dump -c "$tmp/counts.jf" | LC_ALL=C sort > "$tmp/jellyfish.txt"
  if ! cmp -s "$tmp/ours.txt" "$tmp/jellyfish.txt"; then
    echo "k=$k: counts differ from Jellyfish's (< ours, > Jellyfish's):"
    diff "$tmp/ours.txt" "$tmp/jellyfish.txt" | head -6
    exit 1
  fi
  echo "k=$k: $(wc -l < "$tmp/ours.txt") distinct k-mers, every count equal to Jellyfish's"
done
