#!/bin/sh
# Check the manual page of a tool (docs/man/<tool>.1) against the tool:
#
#   (a) groff renders it without a warning (-ww, for terminals in UTF-8 and
#       in ASCII, at man's usual 80 columns);
#   (b) every long option that "<tool> --help" prints in its option column
#       (help lines that start with blanks and a '-', up to two blanks:
#       "--pt", "--block:show-blocks", "--cpuid-0x15.eax",
#       "--filter:addr<n>_cfg", "--<key>") is the tag of an item (.TP) in
#       the page's OPTIONS section;
#   (c) every long option in an item tag of the OPTIONS section is one that
#       --help prints, so that the page and the tool stay in step;
#   (d) every "--" in the page is written "\-\-" (a hyphen-minus that can be
#       copied: groff prints a plain "-" as a hyphen), and the page's .TH
#       names the tool.
#
# Options are compared without fonts and angle brackets: "--<key>" in the
# help matches "\-\-\fIkey\fR" in the page, "--filter:addr<n>_cfg" matches
# "\-\-filter:addr\fIn\fP_cfg".  Options mentioned in the text of the page
# (or of the help) are not compared.
#
# usage: check-man.sh <page> <tool>
# Exits 0 when the page is right, 1 naming each problem, 77 (ctest: skipped)
# after (b) to (d) passed when groff is not installed.
set -u
page=$1 tool=$2
name=$(basename "$page" .1)
fail=0

if [ ! -f "$page" ]; then
	echo "FAIL: $name is built, but has no manual page $page."
	exit 1
fi
if [ ! -x "$tool" ]; then
	echo "FAIL: $page has no tool: $tool not found."
	exit 1
fi

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# The long options in a list of option texts, one per line, sorted.
long_options() {
	grep -o -- '--[A-Za-z0-9<][A-Za-z0-9_.:<>-]*' | tr -d '<>' |
		sed 's/[.:]*$//' | sort -u
}

# (b), (c): the help's options and the page's.
if ! "$tool" --help >"$work/help.txt" 2>&1; then
	echo "FAIL: $tool --help exited with status $?:"
	cat "$work/help.txt"
	exit 1
fi
awk '/^[ \t]+-/ { sub(/^[ \t]+/, ""); sub(/  .*/, ""); print }' \
	"$work/help.txt" | long_options >"$work/help"

# The line after each .TP of the OPTIONS section (until the next .SH) is an
# item's tag.  A font macro's arguments are joined as roff joins them: with
# blanks for .B and .I, without for the alternating .BI, .BR, .IB, .IR, .RB
# and .RI.  Then the font escapes are removed.
awk '
function tag_text(line,    macro, sep, args, arg, c, i, quoted) {
	if (line !~ /^\./)
		return line
	macro = line
	sub(/[ \t].*/, "", macro)
	sep = (macro == ".B" || macro == ".I") ? " " : ""
	sub(/^\.[A-Za-z]*[ \t]*/, "", line)
	args = ""; arg = ""; quoted = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (c == "\"") {
			quoted = !quoted
		} else if (!quoted && (c == " " || c == "\t")) {
			if (arg != "")
				args = args (args == "" ? "" : sep) arg
			arg = ""
		} else {
			arg = arg c
		}
	}
	if (arg != "")
		args = args (args == "" ? "" : sep) arg
	return args
}
/^\.SH/ { sec = $0; sub(/^\.SH[ \t]*/, "", sec); gsub(/"/, "", sec); tag = 0; next }
sec != "OPTIONS" { next }
/^\.\\"/ { next }
/^\.TP/ { tag = 1; next }
tag { print tag_text($0); tag = 0 }
' "$page" |
	sed -e 's/\\f\[[^]]*\]//g' -e 's/\\f(..//g' -e 's/\\f.//g' \
		-e 's/\\-/-/g' -e 's/\\[&%]//g' -e 's/\\[ ~]/ /g' |
	long_options >"$work/page"

if [ ! -s "$work/help" ]; then
	echo "FAIL: found no long option in the output of $tool --help."
	fail=1
fi
if [ ! -s "$work/page" ]; then
	echo "FAIL: found no option item (.TP) in the OPTIONS section of $page."
	fail=1
fi
for o in $(comm -23 "$work/help" "$work/page"); do
	echo "FAIL: $name --help prints $o, but the OPTIONS section of $page" \
	     "has no item for it."
	fail=1
done
for o in $(comm -13 "$work/help" "$work/page"); do
	echo "FAIL: $page documents $o, but $name --help does not print it."
	fail=1
done
[ "$fail" -eq 0 ] &&
	echo "ok: $page documents the $(wc -l <"$work/help") long options of $name --help."

# (d): minus signs, and the title.
if grep -n -e '--' -e '\(^\|[^\\]\)-\\-' "$page" | grep -v '^[0-9]*:\.\\"'; then
	echo "FAIL: $page: write options with \\- (the lines above)."
	fail=1
fi
title=$(sed -n 's/^\.TH[ \t]\{1,\}\([^ \t]*\).*/\1/p' "$page" | head -1 |
	sed 's/\\-/-/g' | tr '[:upper:]' '[:lower:]')
if [ "$title" != "$name" ]; then
	echo "FAIL: $page: .TH names '$title', not $name."
	fail=1
fi

# (a): groff's warnings.
if ! command -v groff >/dev/null 2>&1; then
	[ "$fail" -ne 0 ] && exit 1
	echo "SKIP: groff is not installed (Debian package groff-base), so" \
	     "$page was not rendered; the options were checked."
	exit 77
fi
for dev in utf8 ascii; do
	groff -man -ww -z -T"$dev" -rLL=78n "$page" >"$work/groff.txt" 2>&1
	status=$?
	if [ "$status" -ne 0 ] || [ -s "$work/groff.txt" ]; then
		echo "FAIL: groff -man -ww -T$dev $page (status $status):"
		cat "$work/groff.txt"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "ok: $page renders without a warning."
exit "$fail"
