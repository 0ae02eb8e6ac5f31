# TAP helpers for the shell tests, sourced: ok STATUS DESCRIPTION counts a test point (status 0
# passes), skip DESCRIPTION REASON a skipped one, diag FILE... prints files as comments; $n
# counts the points and $failed the failures.
n=0
failed=0
ok() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    failed=$((failed + 1))
  fi
}
skip() {
  n=$((n + 1))
  echo "ok $n - $1 # SKIP $2"
}
diag() { sed 's/^/# /' "$@"; }
