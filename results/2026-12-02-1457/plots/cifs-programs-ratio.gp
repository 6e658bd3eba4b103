# cifs-programs-ratio.gp: made by tests/bench/bench_report.py; redraw: gnuplot cifs-programs-ratio.gp
set terminal pngcairo size 900,500 noenhanced font "sans,10"
set output 'cifs-programs-ratio.png'
set title 'cifs: whole-program workloads, time / time with the lower''s default options (below 1 = faster)'
set ylabel 'time / time(default) (per run; log scale)'
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
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5
plot 'cifs-programs-ratio.dat' using 2:3:4:xtic(1) title 'tuned', \
     '' using 5:6:7 title 'mergerfs', \
     '' using 8:9:10 title 'rclone', \
     '' using 11:12:13 title 'metacache', \
     '' using 14:15:16 title 'mc-60s', \
     '' using 17:18:19 title 'tmpfs'
