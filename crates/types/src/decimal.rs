//! DECIMAL values: up to 65 significant digits, exact, as MySQL's DECIMAL(65,30).
//!
//! Arithmetic runs on `fastnum::D256` (a 256-bit coefficient, about 77 digits, on the
//! stack, no heap): enough headroom that a sum or quotient of two 65-digit values is
//! exact or rounded only past the digits MySQL keeps. We chose it over `bigdecimal`
//! (heap-allocated, unbounded: every value would allocate on the query path) and over
//! `rust_decimal` (28 digits). A value is *kept* packed in 28 bytes of alignment 1, so
//! `Value` stays 32 bytes: D256 itself is 40 bytes and would make every `Value` 48.
//!
//! Packed layout (also the WAL form, see wal/src/record.rs):
//!   0..27  magnitude, unsigned big-endian (10^65 - 1 < 2^216)
//!   27     bit 7: negative; bits 0..=6: scale (fraction digits, 0..=SCALE_MAX)
//!
//! Invariants:
//! (1) The magnitude has at most `PRECISION_MAX` digits and the scale is at most
//!     `SCALE_MAX`; packing rounds fraction digits (half away from zero) to fit and fails
//!     only when the integer part alone needs more than 65 digits.
//! (2) Zero is never negative, so "-0.00" cannot be printed or stored.
//! (3) Equality and order are numeric (1.5 == 1.50), whatever the scales.

use fastnum::bint::UInt;
use fastnum::decimal::{Context, RoundingMode, Sign};
use fastnum::D256;
use std::cmp::Ordering;
use std::fmt;

/// Most significant digits of a DECIMAL (MySQL's DECIMAL_MAX_PRECISION).
pub const PRECISION_MAX: u32 = 65;
/// Most fraction digits a computed value keeps (MariaDB's DECIMAL_MAX_SCALE); columns
/// allow 30.
pub const SCALE_MAX: u32 = 38;
/// Bytes of `Decimal::to_bytes`.
pub const PACKED_LEN: usize = 28;

const MAGNITUDE_LEN: usize = 27;
const NEGATIVE: u8 = 0x80;
/// No traps: overflow and division by zero come back as flags we check, never panics.
const CTX: Context = Context::default().without_traps();

#[derive(Clone, Copy)]
pub struct Decimal {
    magnitude: [u8; MAGNITUDE_LEN],
    sign_scale: u8,
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        magnitude: [0; MAGNITUDE_LEN],
        sign_scale: 0,
    };
    pub const ONE: Decimal = {
        let mut magnitude = [0; MAGNITUDE_LEN];
        magnitude[MAGNITUDE_LEN - 1] = 1;
        Decimal {
            magnitude,
            sign_scale: 0,
        }
    };

    /// `mantissa * 10^-scale`.
    pub fn new(mantissa: i64, scale: u32) -> Decimal {
        Decimal::from_i128_with_scale(mantissa as i128, scale)
            .expect("an i64 mantissa always fits 65 digits")
    }

    /// `mantissa * 10^-scale`, None if it needs more than 65 integer digits.
    pub fn from_i128_with_scale(mantissa: i128, scale: u32) -> Option<Decimal> {
        let sign = if mantissa < 0 {
            Sign::Minus
        } else {
            Sign::Plus
        };
        let digits = UInt::<4>::from_digits([
            mantissa.unsigned_abs() as u64,
            (mantissa.unsigned_abs() >> 64) as u64,
            0,
            0,
        ]);
        Decimal::pack(D256::from_parts(
            digits,
            -(scale.min(i16::MAX as u32) as i32),
            sign,
            CTX,
        ))
    }

    /// The largest value of DECIMAL(int_digits + scale, scale), capped at 65 digits.
    pub fn max_of(int_digits: u32, scale: u32) -> Decimal {
        let scale = scale.min(SCALE_MAX).min(PRECISION_MAX);
        let digits = (int_digits + scale).min(PRECISION_MAX);
        let nines = UInt::<4>::power_of_ten(digits) - UInt::<4>::ONE;
        Decimal::pack(D256::from_parts(nines, -(scale as i32), Sign::Plus, CTX))
            .expect("65 nines fit")
    }

    /// Parses `[+-]digits[.digits][e[+-]digits]`; fraction digits beyond what fits are
    /// rounded away. None if malformed or if the integer part needs more than 65 digits.
    pub fn parse(text: &str) -> Option<Decimal> {
        let text = text.strip_prefix('+').unwrap_or(text);
        if text.is_empty() || text.starts_with(['+', '-']) && text.len() == 1 {
            return None;
        }
        D256::from_str(text, CTX).ok().and_then(Decimal::pack)
    }

    /// A DOUBLE through its shortest round-trip text (as MySQL converts), None if not
    /// finite or too large.
    pub fn from_f64(value: f64) -> Option<Decimal> {
        if !value.is_finite() {
            return None;
        }
        Decimal::parse(&format!("{value:e}"))
    }

    pub fn to_f64(self) -> f64 {
        self.unpack().to_f64()
    }

    /// The integer part (truncated), None outside i128.
    pub fn to_i128(self) -> Option<i128> {
        let d = self.unpack().trunc();
        let limbs = d.digits().digits().to_owned();
        if limbs[2] != 0 || limbs[3] != 0 || limbs[1] >> 63 != 0 {
            return None;
        }
        let magnitude = (limbs[1] as i128) << 64 | limbs[0] as i128;
        Some(if self.is_sign_negative() {
            -magnitude
        } else {
            magnitude
        })
    }

    /// The integer part (truncated), None outside i64.
    pub fn to_i64(self) -> Option<i64> {
        self.to_i128().and_then(|i| i64::try_from(i).ok())
    }

    /// Fraction digits.
    pub fn scale(&self) -> u32 {
        (self.sign_scale & !NEGATIVE) as u32
    }

    pub fn is_zero(&self) -> bool {
        self.magnitude == [0; MAGNITUDE_LEN]
    }

    pub fn is_sign_negative(&self) -> bool {
        self.sign_scale & NEGATIVE != 0
    }

    pub fn abs(self) -> Decimal {
        Decimal {
            sign_scale: self.sign_scale & !NEGATIVE,
            ..self
        }
    }

    /// Rounded half away from zero to `places` fraction digits (negative: to tens,
    /// hundreds...); the result has scale max(places, 0). None on overflow (999.5 -> 1000
    /// past 65 digits).
    pub fn round(self, places: i32) -> Option<Decimal> {
        self.rescale_with(places, RoundingMode::HalfUp)
    }

    /// Truncated toward zero to `places` fraction digits, as `round`.
    pub fn truncate(self, places: i32) -> Decimal {
        self.rescale_with(places, RoundingMode::Down)
            .expect("truncation never adds digits")
    }

    /// Exactly `scale` fraction digits: pads with zeros or rounds half away from zero.
    pub fn rescale(self, scale: u32) -> Option<Decimal> {
        self.round(scale.min(SCALE_MAX) as i32)
    }

    fn rescale_with(self, places: i32, mode: RoundingMode) -> Option<Decimal> {
        let places = places.clamp(-(PRECISION_MAX as i32) - 1, SCALE_MAX as i32) as i16;
        let d = self.unpack().with_rounding_mode(mode).rescale(places);
        let d = if places < 0 { d.rescale(0) } else { d };
        Decimal::pack(d.with_rounding_mode(RoundingMode::HalfUp))
    }

    /// Rounded toward positive infinity to an integer.
    pub fn ceil(self) -> Decimal {
        Decimal::pack(self.unpack().ceil()).expect("a value with a fraction has room for +1")
    }

    /// Rounded toward negative infinity to an integer.
    pub fn floor(self) -> Decimal {
        Decimal::pack(self.unpack().floor()).expect("a value with a fraction has room for -1")
    }

    /// The same number without trailing fraction zeros (1.50 -> 1.5).
    pub fn normalize(self) -> Decimal {
        let mut d = self;
        while d.scale() > 0 {
            let shorter = d.truncate(d.scale() as i32 - 1);
            if shorter != d {
                break;
            }
            d = shorter;
        }
        d
    }

    pub fn trunc(self) -> Decimal {
        self.truncate(0)
    }

    /// The fraction part, with the sign of `self`.
    pub fn fract(self) -> Decimal {
        self.checked_sub(self.trunc())
            .expect("the fraction is smaller than the value")
    }

    pub fn checked_add(self, other: Decimal) -> Option<Decimal> {
        Decimal::pack(self.unpack().add(other.unpack()))
    }

    pub fn checked_sub(self, other: Decimal) -> Option<Decimal> {
        Decimal::pack(self.unpack().sub(other.unpack()))
    }

    pub fn checked_mul(self, other: Decimal) -> Option<Decimal> {
        Decimal::pack(self.unpack().mul(other.unpack()))
    }

    /// The quotient to as many digits as fit (callers round it to their scale); None
    /// for a zero divisor or overflow.
    pub fn checked_div(self, other: Decimal) -> Option<Decimal> {
        if other.is_zero() {
            return None;
        }
        Decimal::pack(self.unpack().div(other.unpack()))
    }

    /// Remainder with the sign of the dividend (MOD); None for a zero divisor.
    pub fn checked_rem(self, other: Decimal) -> Option<Decimal> {
        if other.is_zero() {
            return None;
        }
        Decimal::pack(self.unpack().rem(other.unpack()))
    }

    /// The packed form (module notes), for the WAL.
    pub fn to_bytes(self) -> [u8; PACKED_LEN] {
        let mut out = [0; PACKED_LEN];
        out[..MAGNITUDE_LEN].copy_from_slice(&self.magnitude);
        out[MAGNITUDE_LEN] = self.sign_scale;
        out
    }

    /// Reads `to_bytes`' form; None if it breaks invariant (1) or (2).
    pub fn from_bytes(bytes: &[u8; PACKED_LEN]) -> Option<Decimal> {
        let mut magnitude = [0; MAGNITUDE_LEN];
        magnitude.copy_from_slice(&bytes[..MAGNITUDE_LEN]);
        let d = Decimal {
            magnitude,
            sign_scale: bytes[MAGNITUDE_LEN],
        };
        let valid = d.scale() <= SCALE_MAX
            && d.coefficient().decimal_digits() <= PRECISION_MAX
            && !(d.is_zero() && d.is_sign_negative());
        valid.then_some(d)
    }

    /// Order-preserving encoding at `scale` fraction digits (the column's): one sign byte
    /// (0 negative, 1 otherwise) and the 27-byte magnitude, inverted when negative.
    pub fn write_key(self, scale: u32, out: &mut Vec<u8>) {
        let d = self
            .rescale(scale)
            .expect("a stored value already has its column's scale");
        if d.is_sign_negative() {
            out.push(0);
            out.extend(d.magnitude.iter().map(|b| !b));
        } else {
            out.push(1);
            out.extend_from_slice(&d.magnitude);
        }
    }

    fn coefficient(&self) -> UInt<4> {
        let mut be = [0u8; 32];
        be[32 - MAGNITUDE_LEN..].copy_from_slice(&self.magnitude);
        let limb = |i: usize| {
            let start = 32 - 8 * (i + 1);
            u64::from_be_bytes(be[start..start + 8].try_into().expect("8 bytes"))
        };
        UInt::<4>::from_digits([limb(0), limb(1), limb(2), limb(3)])
    }

    fn unpack(self) -> D256 {
        let sign = if self.is_sign_negative() {
            Sign::Minus
        } else {
            Sign::Plus
        };
        D256::from_parts(self.coefficient(), -(self.scale() as i32), sign, CTX)
    }

    /// Invariant (1): round fraction digits away until the value fits 65 digits.
    fn pack(d: D256) -> Option<Decimal> {
        if !d.is_finite() || d.is_op_overflow() || d.is_op_invalid() {
            return None;
        }
        let mut d = d.with_rounding_mode(RoundingMode::HalfUp);
        let scale = d.fractional_digits_count();
        if scale < 0 || scale > SCALE_MAX as i16 {
            d = d.rescale(scale.clamp(0, SCALE_MAX as i16));
        }
        while d.digits_count() > PRECISION_MAX as usize && d.fractional_digits_count() > 0 {
            let excess = (d.digits_count() - PRECISION_MAX as usize) as i16;
            d = d.rescale((d.fractional_digits_count() - excess).max(0));
        }
        if d.digits_count() > PRECISION_MAX as usize {
            return None;
        }
        let limbs = d.digits().digits().to_owned();
        let mut be = [0u8; 32];
        for (i, limb) in limbs.iter().enumerate() {
            be[32 - 8 * (i + 1)..32 - 8 * i].copy_from_slice(&limb.to_be_bytes());
        }
        let mut magnitude = [0; MAGNITUDE_LEN];
        magnitude.copy_from_slice(&be[32 - MAGNITUDE_LEN..]);
        let negative = d.is_sign_negative() && !d.is_zero();
        Some(Decimal {
            magnitude,
            sign_scale: d.fractional_digits_count() as u8 | if negative { NEGATIVE } else { 0 },
        })
    }
}

impl Default for Decimal {
    fn default() -> Decimal {
        Decimal::ZERO
    }
}

impl From<i64> for Decimal {
    fn from(value: i64) -> Decimal {
        Decimal::new(value, 0)
    }
}

impl From<u64> for Decimal {
    fn from(value: u64) -> Decimal {
        Decimal::from_i128_with_scale(value as i128, 0).expect("a u64 fits 65 digits")
    }
}

impl std::ops::Neg for Decimal {
    type Output = Decimal;

    fn neg(self) -> Decimal {
        if self.is_zero() {
            return self;
        }
        Decimal {
            sign_scale: self.sign_scale ^ NEGATIVE,
            ..self
        }
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Decimal) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        if self.sign_scale == other.sign_scale {
            // Same sign and scale: the magnitudes compare as big-endian bytes.
            let order = self.magnitude.cmp(&other.magnitude);
            return if self.is_sign_negative() {
                order.reverse()
            } else {
                order
            };
        }
        self.unpack().cmp(&other.unpack())
    }
}

impl std::str::FromStr for Decimal {
    type Err = ParseDecimalError;

    fn from_str(text: &str) -> Result<Decimal, ParseDecimalError> {
        Decimal::parse(text).ok_or(ParseDecimalError)
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct ParseDecimalError;

/// Plain notation with exactly `scale` fraction digits ("-0.050", "12"), never an exponent.
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.coefficient().to_string();
        let scale = self.scale() as usize;
        let padded = if digits.len() <= scale {
            format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
        } else {
            digits
        };
        let (int, fraction) = padded.split_at(padded.len() - scale);
        if self.is_sign_negative() {
            f.write_str("-")?;
        }
        f.write_str(int)?;
        if scale > 0 {
            f.write_str(".")?;
            f.write_str(fraction)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::parse(text).expect("valid literal")
    }

    const MAX_65_30: &str = "99999999999999999999999999999999999.999999999999999999999999999999";

    #[test]
    fn holds_65_digits_exactly() {
        assert_eq!(d(MAX_65_30).to_string(), MAX_65_30);
        assert_eq!(
            d(&format!("-{MAX_65_30}")).to_string(),
            format!("-{MAX_65_30}")
        );
        assert_eq!(Decimal::max_of(35, 30).to_string(), MAX_65_30);
        let ones = "1".repeat(65);
        assert_eq!(d(&ones).to_string(), ones);
        // 66 integer digits overflow; 66 digits with a fraction round the fraction.
        assert_eq!(Decimal::parse(&"9".repeat(66)), None);
        let rounded = d(&format!("{}.5", "1".repeat(65)));
        assert_eq!(rounded.to_string(), format!("{}2", "1".repeat(64)));
        assert_eq!(
            d(MAX_65_30)
                .checked_add(Decimal::ONE)
                .map(|x| x.to_string()),
            Some("100000000000000000000000000000000001.00000000000000000000000000000".into())
        );
        assert_eq!(d(&"9".repeat(65)).checked_add(Decimal::ONE), None);
    }

    #[test]
    fn rounds_half_away_from_zero() {
        assert_eq!(d("2.5").round(0), Some(d("3")));
        assert_eq!(d("-2.5").round(0), Some(d("-3")));
        assert_eq!(
            d("2.45").round(1).map(|x| x.to_string()),
            Some("2.5".into())
        );
        assert_eq!(
            d("1234.5678").round(-2).map(|x| x.to_string()),
            Some("1200".into())
        );
        assert_eq!(d("-2.789").truncate(1).to_string(), "-2.7");
        assert_eq!(
            d("1.5").rescale(3).map(|x| x.to_string()),
            Some("1.500".into())
        );
    }

    #[test]
    fn zero_is_never_negative() {
        assert_eq!(d("-0.00").to_string(), "0.00");
        assert_eq!((-d("0.0")).to_string(), "0.0");
        assert_eq!(
            d("-0.004").round(2).map(|x| x.to_string()),
            Some("0.00".into())
        );
        assert!(!d("-0.001")
            .checked_add(d("0.001"))
            .expect("fits")
            .is_sign_negative());
    }

    #[test]
    fn arithmetic_and_order() {
        assert_eq!(
            d("1.10").checked_add(d("2.205")).map(|x| x.to_string()),
            Some("3.305".into())
        );
        assert_eq!(
            d("1.10").checked_mul(d("2.205")).map(|x| x.to_string()),
            Some("2.42550".into())
        );
        assert_eq!(d("-10.5").checked_rem(d("3")), Some(d("-1.5")));
        assert_eq!(d("1").checked_div(Decimal::ZERO), None);
        let third = d("1").checked_div(d("3")).and_then(|q| q.round(9));
        assert_eq!(third.map(|x| x.to_string()), Some("0.333333333".into()));
        assert_eq!(d("1.5"), d("1.50"));
        assert!(d("-3.5") < d("-0.01") && d("-0.01") < d("0") && d("0") < d("2.25"));
        assert_eq!(d("12.9").to_i128(), Some(12));
        assert_eq!(d("-12.9").to_i64(), Some(-12));
        assert_eq!(d("0.0000000001").to_string(), "0.0000000001");
        assert_eq!(d("1.5e3").to_string(), "1500");
        assert_eq!(
            Decimal::from_f64(0.1).map(|x| x.to_string()),
            Some("0.1".into())
        );
        assert_eq!(d("-0.5").fract(), d("-0.5"));
        assert_eq!(d("-2.1").floor().to_string(), "-3");
        assert_eq!(d("-2.1").ceil().to_string(), "-2");
        assert_eq!(d("1.500").normalize().to_string(), "1.5");
        assert_eq!(d("100").normalize().to_string(), "100");
    }

    /// Packed bytes and key encoding round-trip and keep order, over random values.
    #[test]
    fn bytes_and_keys_round_trip_in_order() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut values: Vec<Decimal> = vec![d(MAX_65_30), -d(MAX_65_30), Decimal::ZERO];
        for _ in 0..2000 {
            let int_digits = (next() % 36) as usize;
            let frac_digits = (next() % 31) as usize;
            let text: String = (0..int_digits + frac_digits)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect();
            let sign = if next() % 2 == 0 { "-" } else { "" };
            let (int, frac) = text.split_at(int_digits);
            values.push(d(&format!("{sign}0{int}.{frac}0")));
        }
        for v in &values {
            assert_eq!(Decimal::from_bytes(&v.to_bytes()), Some(*v));
            assert_eq!(
                Decimal::from_bytes(&v.to_bytes()).map(|x| x.scale()),
                Some(v.scale())
            );
        }
        let key = |v: &Decimal| {
            let mut out = Vec::new();
            v.write_key(30, &mut out);
            out
        };
        values.sort();
        for pair in values.windows(2) {
            assert_eq!(
                pair[0].cmp(&pair[1]),
                key(&pair[0]).cmp(&key(&pair[1])),
                "{pair:?}"
            );
        }
        let mut bad = Decimal::ONE.to_bytes();
        bad[27] = NEGATIVE;
        bad[26] = 0;
        assert_eq!(Decimal::from_bytes(&bad), None, "negative zero");
        assert_eq!(
            Decimal::from_bytes(&[0xFF; PACKED_LEN]),
            None,
            "more than 65 digits"
        );
    }

    #[test]
    fn value_stays_small() {
        assert_eq!(std::mem::size_of::<Decimal>(), PACKED_LEN);
        assert_eq!(std::mem::size_of::<crate::Value>(), 32);
    }
}
