# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke sim: the UDP share of the link against udp_rate, drawn by gnuplot.
# Restyle at will and run again: gnuplot multi-udp-4.gp (in its directory).
# $data: udp_rate, then the UDP share of the link under each discipline,
# then its UDP share of the queue; $fluid: CHOKe's fluid model.
set terminal pngcairo size 900,600 font 'sans,11'
set output 'multi-udp-4.png'
set title "multi-udp: 32 TCP + 4 UDP, limit 300p min 100p max 200p ewma 9 probability 0.02 Scell_log 22" noenhanced
set xlabel "udp_rate (c)" noenhanced
set ylabel 'UDP share'
set yrange [0:1.05]
set grid
set key top left
set logscale x
$data << EOD
0.1 0.096500 0.094500 0.093700 0.096598 0.094454 0.093934
0.138949549 0.133800 0.130700 0.124800 0.133748 0.130067 0.126360
0.193069773 0.184200 0.181100 0.173800 0.183177 0.180786 0.175586
0.26826958 0.261100 0.248400 0.229900 0.260384 0.248277 0.233828
0.372759372 0.359100 0.333400 0.301600 0.358405 0.332589 0.309383
0.517947468 0.500800 0.461300 0.386600 0.499347 0.460800 0.398158
0.719685673 0.679900 0.603600 0.476700 0.679557 0.602808 0.496866
1 0.885500 0.814200 0.569300 0.885408 0.814167 0.597840
1.38949549 0.990300 0.987100 0.691600 0.990632 0.987751 0.722246
1.93069773 0.997100 0.985100 0.791200 0.997383 0.985319 0.821101
2.6826958 0.999500 0.999500 0.870800 0.999532 0.999573 0.898418
3.72759372 0.999800 0.999700 0.916400 0.999800 0.999700 0.940610
5.17947468 0.999500 0.999600 0.976300 0.999500 0.999600 0.985327
7.19685673 0.999900 1.000000 0.984800 0.999900 1.000000 0.991599
10 0.999700 0.999700 0.988900 0.999700 0.999700 0.994750
EOD
plot $data using 1:2 with linespoints lw 2 pt 5 title 'fifo, link', \
     $data using 1:3 with linespoints lw 2 pt 7 title 'red, link', \
     $data using 1:4 with linespoints lw 2 pt 9 title 'choke, link', \
     $data using 1:7 with linespoints dt 2 pt 6 lc rgb '#777777' title 'choke, queue'
