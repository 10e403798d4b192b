//! The scalability plot: time per oracle call against `n`, one line per pattern, log y
//! axis, as SVG. plotters is built without font features (`svg_backend`, `line_series`
//! only): the SVG backend writes text as `<text>` elements and plotters' built-in
//! approximate metrics lay it out, so no font file, fontconfig or FreeType is needed.

use std::path::Path;

use plotters::prelude::*;

/// One measured line: a pattern name and its (n, ms per call) points.
pub type Series = (String, Vec<(u32, f64)>);

/// Writes the plot of `series` to `path`.
pub fn scalability_svg(path: &Path, series: &[Series]) -> anyhow::Result<()> {
    let max_n = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .max()
        .unwrap_or(1);
    let ms = || series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1));
    let lo = ms().fold(f64::INFINITY, f64::min).max(1e-3);
    let hi = ms().fold(0.0, f64::max).max(lo * 10.0);
    let root = SVGBackend::new(path, (800, 520)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "static verifier on Faial's scalability patterns",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0u32..max_n + 1, (lo / 2.0..hi * 2.0).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("n (repetitions of the pattern)")
        .y_desc("ms per oracle call (log)")
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// The cost study's scatter plot: static cost (x) against measured barrier executions
/// (y), log–log, one series per static model; each point is one valid placement of one
/// kernel. Zero values are drawn at the bottom/left edge.
pub fn cost_scatter_svg(path: &Path, series: &[(String, Vec<(f64, f64)>)]) -> anyhow::Result<()> {
    let pos = |f: fn(&(f64, f64)) -> f64| {
        let v: Vec<f64> = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(f))
            .filter(|x| *x > 0.0)
            .collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        if lo.is_finite() {
            (lo / 2.0, (hi * 2.0).max(lo))
        } else {
            (0.1, 10.0)
        }
    };
    let (xlo, xhi) = pos(|p| p.0);
    let (ylo, yhi) = pos(|p| p.1);
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("static cost vs measured barrier executions", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((xlo..xhi).log_scale(), (ylo..yhi).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("static cost of the placement (log)")
        .y_desc("measured executions, whole grid (log)")
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.max(xlo), y.max(ylo))).collect();
        chart
            .draw_series(
                pts.iter()
                    .map(|&p| Circle::new(p, 3 + 2 * i as i32, color.stroke_width(1))),
            )
            .map_err(|e| err(&e))?
            .label(name.as_str())
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
