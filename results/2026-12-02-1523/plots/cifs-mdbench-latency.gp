# cifs-mdbench-latency.gp: made by tests/bench/bench_report.py; redraw: gnuplot cifs-mdbench-latency.gp
set terminal pngcairo size 900,500 noenhanced font "sans,10"
set output 'cifs-mdbench-latency.png'
set title 'cifs: mdbench, mean latency per operation'
set ylabel 'mean us per operation (log scale)'
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key outside right top
set grid ytics
set xtics rotate by -30 nomirror
set datafile separator '\t'
set datafile missing 'NaN'
set logscale y
plot 'cifs-mdbench-latency.dat' using 2:3:4:xtic(1) title 'default', \
     '' using 5:6:7 title 'tuned', \
     '' using 8:9:10 title 'mergerfs', \
     '' using 11:12:13 title 'rclone', \
     '' using 14:15:16 title 'metacache', \
     '' using 17:18:19 title 'mc-60s', \
     '' using 20:21:22 title 'tmpfs'
