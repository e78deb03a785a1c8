# Count results in a guest console log.
#  KUnit (printed by the kernel at boot): a test case is a line
#    "    ok N name" / "    not ok N name" inside a "# Subtest:" suite;
#    a suite that failed without cases counts as one failure.
#  Userspace programs (between @@BEGIN name@@ and @@END name rc=N@@):
#    top-level "ok N" / "not ok N" lines; "# SKIP" marks a skip.  A program
#    that exits non-zero with no failing line, or prints no result at all,
#    counts as one failure.
# Output: "pass fail skip" on the last line; earlier lines name failures.
function result(line,    skip) {
	# an expected failure (XFAIL) is not a pass either
	skip = (line ~ /# ([Ss][Kk][Ii][Pp]|XFAIL)/)
	if (line ~ /^not ok /) { if (skip) s++; else { f++; print "FAILED: " prog ": " line } ; pf++ }
	else if (skip) { s++; pp++ }
	else { p++; pp++ }
}
BEGIN { p = 0; f = 0; s = 0; prog = "" }
/^@@BEGIN / { prog = $2; sub(/@@$/, "", prog); pp = 0; pf = 0; inprog = 1; next }
/^@@END / {
	rc = $0; sub(/.*rc=/, "", rc); sub(/@@.*/, "", rc)
	if (pp + pf == 0) { f++; print "FAILED: " prog ": printed no test result (rc=" rc ")" }
	else if (rc != 0 && pf == 0) { f++; print "FAILED: " prog ": exited with rc=" rc " without a failing test line" }
	inprog = 0; next
}
inprog && /^(not )?ok [0-9]+/ { result($0); next }
!inprog && /^    # Subtest: / { suite = $3; cases = 0; next }
!inprog && /^    (not )?ok [0-9]+/ { cases++; prog = "kunit:" suite; sub(/^    /, ""); result($0); next }
!inprog && /^not ok [0-9]+ / && cases == 0 { f++; print "FAILED: kunit: " $0; next }
!inprog && /^ok [0-9]+ / { cases = 0; next }
END { print p, f, s }
