//! Run a simulation without the binary: `cargo run --release -p tidings-simulate --example
//! simulate -- FEEDS HOSTS DAYS [THREADS]` (for profiling the simulator itself).

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap_or(0))
        .collect();
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let config = tidings_simulate::Config {
        feeds: arg(0, 100_000) as u32,
        hosts: arg(1, 5_000) as u32,
        days: arg(2, 1) as u32,
        seed: 1,
        threads: arg(3, 2) as u32,
    };
    let profile = match tidings_policy::Profile::embedded("default") {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    match tidings_simulate::simulate(&config, &profile, &|d| eprintln!("day {d}")) {
        Ok(report) => println!("{report:#?}"),
        Err(e) => eprintln!("{e}"),
    }
}
